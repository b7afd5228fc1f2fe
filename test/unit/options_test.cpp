#include <roofline/error.hpp>
#include <roofline/kernel_record.hpp>
#include <roofline/options.hpp>

#include <gtest/gtest.h>

#include <cstdlib>

using namespace roofline;

TEST(Options, EnvironmentOverridesDefaults) {
    ::setenv("ROOFLINE_MAX_KERNELS", "12", 1);
    ::setenv("ROOFLINE_DEVICE", "1", 1);
    ::setenv("ROOFLINE_OUTPUT", "out.rfl", 1);
    const Options o = Options::fromEnvironment();
    EXPECT_EQ(o.maxKernels, 12u);
    EXPECT_EQ(o.device, 1);
    EXPECT_EQ(o.outputPath, "out.rfl");
    ::unsetenv("ROOFLINE_DEVICE");
    ::unsetenv("ROOFLINE_OUTPUT");
    ::unsetenv("ROOFLINE_MAX_KERNELS");
    EXPECT_EQ(Options::fromEnvironment().maxKernels, Options{}.maxKernels);
}

TEST(Options, MalformedValuesNameTheVariable) {
    for (const char* bad : {"", "12x", "-3", "0", "99999999999"}) {
        ::setenv("ROOFLINE_MAX_KERNELS", bad, 1);
        try {
            Options::fromEnvironment();
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
            EXPECT_NE(std::string(e.what()).find("ROOFLINE_MAX_KERNELS"), std::string::npos);
        }
    }
    ::unsetenv("ROOFLINE_MAX_KERNELS");
    ::setenv("ROOFLINE_MODE", "magic", 1);
    EXPECT_THROW(Options::fromEnvironment(), Error);
    ::setenv("ROOFLINE_MODE", "kernel-replay", 1);
    EXPECT_EQ(Options::fromEnvironment().mode, CollectionMode::KernelReplay);
    ::unsetenv("ROOFLINE_MODE");
}

TEST(Names, KindsAndLevels) {
    EXPECT_EQ(toString(FlopKind::TensorBF16), "tensor_bf16");
    EXPECT_EQ(toString(MemoryLevel::DRAM), "DRAM");
    EXPECT_TRUE(isTensor(FlopKind::TensorFP64));
    EXPECT_FALSE(isTensor(FlopKind::FP64));
    EXPECT_FALSE(isFloatingPoint(FlopKind::TensorINT8));
    EXPECT_STREQ(toString(ErrorCode::CorruptRecording), "CorruptRecording");
}
