#include "cupti/l2_flush.hpp"
#include "cupti/driver.hpp"

#include <roofline/error.hpp>

#include <string>

namespace roofline::cupti {
namespace {

thread_local int tOwnLaunches = 0;

// Each thread reads 16 bytes per element of the buffer, grid-stride, through L2 only (ld.cg); the
// sum is stored only if it were -1 (never: the buffer holds zeros), which keeps the loads.
constexpr const char* kPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry roofline_flush_l2(
    .param .u64 roofline_flush_l2_buffer,
    .param .u64 roofline_flush_l2_count,
    .param .u64 roofline_flush_l2_sink
)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [roofline_flush_l2_buffer];
    ld.param.u64 %rd2, [roofline_flush_l2_count];
    ld.param.u64 %rd3, [roofline_flush_l2_sink];
    cvta.to.global.u64 %rd4, %rd1;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    cvt.u64.u32 %rd5, %r4;
    mov.u32 %r5, %nctaid.x;
    mul.lo.s32 %r6, %r5, %r2;
    cvt.u64.u32 %rd6, %r6;
    mov.f32 %f1, 0f00000000;
    setp.ge.u64 %p1, %rd5, %rd2;
    @%p1 bra DONE;
LOOP:
    shl.b64 %rd7, %rd5, 4;
    add.s64 %rd8, %rd4, %rd7;
    ld.global.cg.v4.f32 {%f2, %f3, %f4, %f5}, [%rd8];
    add.f32 %f1, %f1, %f2;
    add.s64 %rd5, %rd5, %rd6;
    setp.lt.u64 %p2, %rd5, %rd2;
    @%p2 bra LOOP;
DONE:
    setp.neu.f32 %p1, %f1, 0fBF800000;
    @%p1 bra END;
    cvta.to.global.u64 %rd9, %rd3;
    st.global.f32 [%rd9], %f1;
END:
    ret;
}
)";

constexpr unsigned kBlocks = 264, kThreads = 1024; // two blocks per SM on the H100

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS)
        return;
    const DriverApi* d = driver();
    const char* name = nullptr;
    if (d)
        d->getErrorName(r, &name);
    throw Error(ErrorCode::Cuda, std::string("the L2 flush kernel: ") + what + " failed (" +
                                     (name ? name : "?") + ")");
}

} // namespace

L2Flush::L2Flush(std::uint64_t l2Bytes) {
    const DriverApi* d = driver();
    if (!d || !d->launchKernel)
        throw Error(ErrorCode::Cuda, "the L2 flush kernel: the driver lacks cuModuleLoadData or "
                                     "cuLaunchKernel");
    if (l2Bytes == 0)
        throw Error(ErrorCode::Cuda, "the L2 flush kernel: the device's L2 size is unknown");
    const std::uint64_t bytes = 2 * l2Bytes;
    vectors_ = bytes / 16;
    CUmodule module = nullptr;
    check(d->moduleLoadData(&module, kPtx), "cuModuleLoadData");
    module_ = module;
    try {
        CUfunction f = nullptr;
        check(d->moduleGetFunction(&f, module, "roofline_flush_l2"), "cuModuleGetFunction");
        function_ = f;
        CUdeviceptr p = 0;
        check(d->memAlloc(&p, bytes), "cuMemAlloc of twice the L2's size");
        buffer_ = p;
        check(d->memAlloc(&p, 16), "cuMemAlloc");
        sink_ = p;
        check(d->memsetD32(static_cast<CUdeviceptr>(buffer_), 0u, bytes / 4), "cuMemsetD32");
        if (!launch(0)) // loads the kernel now, not inside a pass
            check(CUDA_ERROR_LAUNCH_FAILED, "cuLaunchKernel");
        check(d->ctxSynchronize(), "cuCtxSynchronize");
    } catch (...) {
        release();
        throw;
    }
}

L2Flush::~L2Flush() {
    release();
}

void L2Flush::release() noexcept {
    const DriverApi* d = driver();
    if (!d)
        return;
    if (buffer_)
        d->memFree(static_cast<CUdeviceptr>(buffer_));
    if (sink_)
        d->memFree(static_cast<CUdeviceptr>(sink_));
    if (module_)
        d->moduleUnload(static_cast<CUmodule>(module_));
    buffer_ = sink_ = 0;
    module_ = nullptr;
}

bool L2Flush::launch(std::uint64_t stream) noexcept {
    const DriverApi* d = driver();
    if (!d || !function_)
        return false;
    unsigned long long buffer = buffer_, count = vectors_, sink = sink_;
    void* params[] = {&buffer, &count, &sink};
    const OwnLaunches own;
    return d->launchKernel(static_cast<CUfunction>(function_), kBlocks, 1, 1, kThreads, 1, 1, 0,
                           reinterpret_cast<CUstream>(stream), params, nullptr) == CUDA_SUCCESS;
}

OwnLaunches::OwnLaunches() noexcept {
    ++tOwnLaunches;
}
OwnLaunches::~OwnLaunches() {
    --tOwnLaunches;
}
bool OwnLaunches::active() noexcept {
    return tOwnLaunches > 0;
}

} // namespace roofline::cupti
