// Runs a fuzz target without libFuzzer (any compiler): every file given (or every file in a
// directory given) as is, then `--mutations N` deterministic mutations of each -- bit flips, byte
// runs set to 0x00/0xff, truncations, and 64-bit size fields rewritten to huge values -- so the
// test suite replays the seeds and a short, reproducible fuzzing run on every build.
//   <target> [--mutations N] FILE|DIR...
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void run(const std::vector<std::uint8_t>& bytes) {
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> b, std::mt19937_64& rng) {
    if (b.empty())
        return b;
    std::uniform_int_distribution<std::size_t> at(0, b.size() - 1);
    switch (rng() % 5) {
    case 0: // bit flips
        for (int i = 0; i < 1 + static_cast<int>(rng() % 8); ++i)
            b[at(rng)] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        break;
    case 1: { // a run of 0x00 or 0xff
        const std::size_t p = at(rng), n = std::min<std::size_t>(b.size() - p, 1 + rng() % 16);
        std::memset(b.data() + p, rng() % 2 ? 0xff : 0x00, n);
        break;
    }
    case 2: // truncation
        b.resize(at(rng));
        break;
    case 3: { // a 64-bit field rewritten to a huge value
        if (b.size() >= 8) {
            const std::size_t p = at(rng) % (b.size() - 7);
            const std::uint64_t v = (rng() % 2) ? ~0ull : (1ull << (32 + rng() % 31));
            std::memcpy(b.data() + p, &v, 8);
        }
        break;
    }
    default: { // a digit in text replaced by a long number
        const std::string big = "1e308";
        const std::size_t p = at(rng);
        b.insert(b.begin() + static_cast<std::ptrdiff_t>(p), big.begin(), big.end());
        break;
    }
    }
    return b;
}

} // namespace

int main(int argc, char** argv) {
    long mutations = 0;
    std::vector<std::filesystem::path> files;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--mutations") == 0 && i + 1 < argc) {
            mutations = std::strtol(argv[++i], nullptr, 10);
            continue;
        }
        const std::filesystem::path p(argv[i]);
        if (std::filesystem::is_directory(p)) {
            for (const auto& e : std::filesystem::directory_iterator(p))
                if (e.is_regular_file())
                    files.push_back(e.path());
        } else {
            files.push_back(p);
        }
    }
    std::mt19937_64 rng(20261123);
    std::size_t runs = 0;
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "cannot read seed '%s': give existing files or directories\n",
                         f.string().c_str());
            return 2;
        }
        const std::vector<std::uint8_t> seed((std::istreambuf_iterator<char>(in)),
                                             std::istreambuf_iterator<char>());
        run(seed);
        ++runs;
        for (long m = 0; m < mutations; ++m, ++runs)
            run(mutate(seed, rng));
    }
    std::printf("%zu inputs from %zu seeds ran without a crash\n", runs, files.size());
    return files.empty() ? 2 : 0;
}
