#include "cupti/relaunch.hpp"
#include "cupti/check.hpp"
#include "cupti/driver.hpp"
#include "cupti/l2_flush.hpp"

#include "core/launch_arguments.hpp"

#include <roofline/error.hpp>

#include <cuda.h>
#include <cupti.h>
#include <cupti_checkpoint.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string_view>

namespace roofline::cupti {
namespace {

using NV::Cupti::Checkpoint::CUpti_Checkpoint;

// CUPTI's checkpoint library, loaded at the first use: beside libcupti, or on the loader's path.
struct CheckpointApi {
    decltype(&NV::Cupti::Checkpoint::cuptiCheckpointSave) save = nullptr;
    decltype(&NV::Cupti::Checkpoint::cuptiCheckpointRestore) restore = nullptr;
    decltype(&NV::Cupti::Checkpoint::cuptiCheckpointFree) free = nullptr;
    std::string error;
};

const CheckpointApi& checkpointApi() noexcept {
    static const CheckpointApi api = [] {
        CheckpointApi a;
        void* lib = nullptr;
        Dl_info info{};
        if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) && info.dli_fname) {
            std::string path = info.dli_fname; // libcupti's own directory first
            const std::size_t slash = path.rfind('/');
            if (slash != std::string::npos)
                lib = dlopen((path.substr(0, slash + 1) + "libcheckpoint.so").c_str(), RTLD_NOW);
        }
        if (!lib)
            lib = dlopen("libcheckpoint.so", RTLD_NOW);
        if (!lib) {
            const char* e = dlerror();
            a.error = std::string("CUPTI's checkpoint library (libcheckpoint.so) is not found "
                                  "beside libcupti or on the loader's path: ") +
                      (e ? e : "");
            return a;
        }
        a.save = reinterpret_cast<decltype(a.save)>(dlsym(lib, "cuptiCheckpointSave"));
        a.restore = reinterpret_cast<decltype(a.restore)>(dlsym(lib, "cuptiCheckpointRestore"));
        a.free = reinterpret_cast<decltype(a.free)>(dlsym(lib, "cuptiCheckpointFree"));
        if (!a.save || !a.restore || !a.free) {
            a.save = nullptr;
            a.error = "libcheckpoint.so lacks cuptiCheckpointSave/Restore/Free";
        }
        return a;
    }();
    return api;
}

// A cuLaunchKernel-style launch's arguments, copied at the offsets and sizes the driver gives.
bool copyArguments(CUfunction f, void** params, std::vector<std::uint8_t>& bytes,
                   std::vector<std::size_t>& offsets, std::string& why) {
    const DriverApi* d = driver();
    std::size_t offset = 0, size = 0;
    const bool kernel =
        d->funcGetParamInfo(f, 0, &offset, &size) != CUDA_SUCCESS &&
        d->kernelGetParamInfo(reinterpret_cast<CUkernel>(f), 0, &offset, &size) == CUDA_SUCCESS;
    for (std::size_t i = 0;; ++i) {
        const CUresult r =
            kernel ? d->kernelGetParamInfo(reinterpret_cast<CUkernel>(f), i, &offset, &size)
                   : d->funcGetParamInfo(f, i, &offset, &size);
        if (r != CUDA_SUCCESS)
            break; // past the last argument
        if (!params || !params[i]) {
            why = "its arguments are not readable";
            return false;
        }
        offsets.push_back(bytes.size());
        const auto* p = static_cast<const std::uint8_t*>(params[i]);
        bytes.insert(bytes.end(), p, p + size);
    }
    offsets.push_back(bytes.size());
    return true;
}

// An argument buffer passed through `extra` (CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE).
bool copyExtra(void** extra, std::vector<std::uint8_t>& bytes, std::string& why) {
    const void* buffer = nullptr;
    const std::size_t* size = nullptr;
    for (std::size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END && i < 16; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buffer = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
            size = static_cast<const std::size_t*>(extra[i + 1]);
        else {
            why = "its `extra` launch options are not ones libroofline knows";
            return false;
        }
    }
    if (!buffer || !size) {
        why = "its argument buffer is not readable";
        return false;
    }
    const auto* p = static_cast<const std::uint8_t*>(buffer);
    bytes.assign(p, p + *size);
    return true;
}

// The driver API callbacks whose names begin with one of `prefixes`, read from CUPTI's names.
template <std::size_t N>
std::vector<unsigned> callbacksNamed(const std::string_view (&prefixes)[N]) {
    std::vector<unsigned> out;
    for (unsigned cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS || !name)
            continue;
        const std::string_view n(name);
        if (std::any_of(std::begin(prefixes), std::end(prefixes),
                        [&](std::string_view p) { return n.substr(0, p.size()) == p; }))
            out.push_back(cbid);
    }
    return out;
}

std::vector<unsigned> findMemoryCallbacks() {
    static constexpr std::string_view kPrefixes[] = {"cuMemcpy",
                                                     "cuMemset",
                                                     "cuMemAlloc",
                                                     "cuMemFree",
                                                     "cuMemHostAlloc",
                                                     "cuMemHostRegister",
                                                     "cuMemHostUnregister",
                                                     "cuMemMap",
                                                     "cuMemUnmap",
                                                     "cuMemRelease",
                                                     "cuMemCreate",
                                                     "cuMemPool",
                                                     "cuMemPrefetch",
                                                     "cuMemDiscard",
                                                     "cuArray",
                                                     "cuMipmappedArray",
                                                     "cuStreamDestroy",
                                                     "cuCtxDestroy",
                                                     "cuCtxReset",
                                                     "cuDevicePrimaryCtxReset",
                                                     "cuModuleUnload",
                                                     "cuLibraryUnload"};
    return callbacksNamed(kPrefixes);
}

// A launch's kernel and arguments, from its driver callback's parameters; false for a call
// that is no kernel launch libroofline knows.
bool kernelAndArguments(unsigned cbid, const void* params, CUfunction& f, void**& args,
                        void**& extra) {
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchKernel_params*>(params);
        f = p->f, args = p->kernelParams, extra = p->extra;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
        f = p->f, args = p->kernelParams, extra = nullptr;
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        f = p->f, args = p->kernelParams, extra = p->extra;
        return true;
    }
    default:
        return false;
    }
}

// Whether `v` is the address of memory the driver knows (device, pinned, managed), the ranges
// it names cached. Called under the collector's lock.
bool isAddress(std::uint64_t v) {
    static core::AddressCache cache;
    switch (cache.lookup(v)) {
    case core::AddressCache::Known::Address:
        return true;
    case core::AddressCache::Known::NotAddress:
        return false;
    case core::AddressCache::Known::Unknown:
        break;
    }
    const DriverApi* d = driver();
    if (!d || !d->pointerGetAttributes)
        return false;
    unsigned type = 0;
    CUdeviceptr start = 0;
    std::size_t size = 0;
    CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void* out[] = {&type, &start, &size};
    // Not an address: success, the values left zero (cuPointerGetAttributes' contract).
    if (d->pointerGetAttributes(3, which, out, static_cast<CUdeviceptr>(v)) != CUDA_SUCCESS ||
        type == 0) {
        cache.addNotAddress(v);
        return false;
    }
    if (size > 0)
        cache.addRange(start, size);
    return true;
}

} // namespace

bool launchArguments(unsigned cbid, const void* params, std::string& bytes) noexcept {
    try {
        CUfunction f = nullptr;
        void** args = nullptr;
        void** extra = nullptr;
        if (!params || !windowReplayAvailable() ||
            !kernelAndArguments(cbid, params, f, args, extra))
            return false;
        std::vector<std::uint8_t> b;
        std::vector<std::size_t> offsets;
        std::string why;
        if (args || !extra ? !copyArguments(f, args, b, offsets, why) : !copyExtra(extra, b, why))
            return false;
        if (offsets.empty())
            offsets = {0, b.size()}; // `extra`'s buffer: one argument block
        std::string own(b.begin(), b.end());
        core::zeroAddresses(own, offsets, isAddress);
        bytes += own;
        return true;
    } catch (...) {
        return false;
    }
}

struct RecordedLaunch::Data {
    CUfunction f = nullptr;
    unsigned grid[3] = {}, block[3] = {}, shared = 0;
    CUstream stream = nullptr;
    bool ex = false;                 // launched through cuLaunchKernelEx, with `attributes`
    bool extra = false;              // `bytes` is one argument buffer passed through `extra`
    std::vector<std::uint8_t> bytes; // the arguments, one after the other (or `extra`'s buffer)
    std::vector<void*> args;         // where each argument is in `bytes`, as the driver takes them
    std::vector<CUlaunchAttribute> attributes;
};

RecordedLaunch::RecordedLaunch() = default;
RecordedLaunch::~RecordedLaunch() = default;
RecordedLaunch::RecordedLaunch(RecordedLaunch&&) noexcept = default;
RecordedLaunch& RecordedLaunch::operator=(RecordedLaunch&&) noexcept = default;

bool RecordedLaunch::record(unsigned cbid, const void* params, std::string& why) noexcept {
    try {
        if (!windowReplayAvailable(&why))
            return false;
        auto d = std::make_unique<Data>();
        void** args = nullptr;
        void** extra = nullptr;
        const bool perThread = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
                               cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz ||
                               cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz;
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
            cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
            const auto* p = static_cast<const cuLaunchKernel_params*>(params);
            *d = Data{p->f,
                      {p->gridDimX, p->gridDimY, p->gridDimZ},
                      {p->blockDimX, p->blockDimY, p->blockDimZ},
                      p->sharedMemBytes,
                      p->hStream};
            args = p->kernelParams;
            extra = p->extra;
        } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel ||
                   cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz) {
            const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
            *d = Data{p->f,
                      {p->gridDimX, p->gridDimY, p->gridDimZ},
                      {p->blockDimX, p->blockDimY, p->blockDimZ},
                      p->sharedMemBytes,
                      p->hStream};
            d->ex = true; // launched again through cuLaunchKernelEx, cooperative by attribute
            CUlaunchAttribute a{};
            a.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            a.value.cooperative = 1;
            d->attributes.push_back(a);
            args = p->kernelParams;
        } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx ||
                   cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
            const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
            const CUlaunchConfig* c = p->config;
            *d = Data{p->f,
                      {c->gridDimX, c->gridDimY, c->gridDimZ},
                      {c->blockDimX, c->blockDimY, c->blockDimZ},
                      c->sharedMemBytes,
                      c->hStream};
            d->ex = true;
            d->attributes.assign(c->attrs, c->attrs + c->numAttrs);
            args = p->kernelParams;
            extra = p->extra;
        } else {
            why = "it is not a kernel launch libroofline can record";
            return false;
        }
        if (!d->stream && perThread)
            d->stream = CU_STREAM_PER_THREAD;
        std::vector<std::size_t> offsets;
        if (args || !extra) { // no `extra` and no arguments: a kernel that takes none, or refused
            if (!copyArguments(d->f, args, d->bytes, offsets, why))
                return false;
            for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
                d->args.push_back(d->bytes.data() + offsets[i]); // `bytes` is complete: stable
        } else {
            d->extra = true;
            if (!copyExtra(extra, d->bytes, why))
                return false;
        }
        d_ = std::move(d);
        return true;
    } catch (...) {
        why = "out of memory";
        return false;
    }
}

void RecordedLaunch::relaunch() const {
    if (!d_)
        throw Error(ErrorCode::InvalidState, "relaunch of a launch that was not recorded");
    const DriverApi* drv = driver();
    OwnLaunches own; // not the program's launch: the launch callbacks leave it alone
    // The driver only reads what these point to.
    std::size_t size = d_->bytes.size();
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, const_cast<std::uint8_t*>(d_->bytes.data()),
                     CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    void** params = d_->extra ? nullptr : const_cast<void**>(d_->args.data());
    void** extras = d_->extra ? extra : nullptr;
    CUresult r = CUDA_SUCCESS;
    if (!d_->ex) {
        r = drv->launchKernel(d_->f, d_->grid[0], d_->grid[1], d_->grid[2], d_->block[0],
                              d_->block[1], d_->block[2], d_->shared, d_->stream, params, extras);
    } else {
        if (!drv->launchKernelEx)
            throw Error(ErrorCode::Cuda, "the driver lacks cuLaunchKernelEx");
        CUlaunchConfig c{};
        c.gridDimX = d_->grid[0], c.gridDimY = d_->grid[1], c.gridDimZ = d_->grid[2];
        c.blockDimX = d_->block[0], c.blockDimY = d_->block[1], c.blockDimZ = d_->block[2];
        c.sharedMemBytes = d_->shared;
        c.hStream = d_->stream;
        c.attrs = const_cast<CUlaunchAttribute*>(d_->attributes.data());
        c.numAttrs = static_cast<unsigned>(d_->attributes.size());
        r = drv->launchKernelEx(&c, d_->f, params, extras);
    }
    if (r != CUDA_SUCCESS)
        throw Error(ErrorCode::Cuda,
                    "a recorded launch could not be launched again (CUDA error " +
                        std::to_string(static_cast<int>(r)) + ")",
                    static_cast<int>(r));
}

struct Checkpoint::Handle {
    CUpti_Checkpoint c{};
};

Checkpoint::Checkpoint(void* context) : h_(std::make_unique<Handle>()) {
    h_->c.structSize = CUpti_Checkpoint_STRUCT_SIZE;
    h_->c.ctx = static_cast<CUcontext>(context);
    h_->c.allowOverwrite = 1;
}

Checkpoint::~Checkpoint() {
    free();
}

void Checkpoint::save() {
    const CheckpointApi& api = checkpointApi();
    if (!api.save)
        throw Error(ErrorCode::Cupti, api.error);
    OwnLaunches own; // its copies are libroofline's, not the program's
    const CUptiResult r = api.save(&h_->c);
    if (r != CUPTI_SUCCESS)
        throw Error(ErrorCode::Cupti,
                    "saving the device's memory failed (CUPTI checkpoint error " +
                        std::to_string(static_cast<int>(r)) + ")",
                    static_cast<int>(r));
    saved_ = true;
}

void Checkpoint::restore() {
    const CheckpointApi& api = checkpointApi();
    if (!saved_ || !api.restore)
        throw Error(ErrorCode::InvalidState, "restoring device memory that was not saved");
    OwnLaunches own;
    const CUptiResult r = api.restore(&h_->c);
    if (r != CUPTI_SUCCESS)
        throw Error(ErrorCode::Cupti,
                    "restoring the device's memory failed (CUPTI checkpoint error " +
                        std::to_string(static_cast<int>(r)) + ")",
                    static_cast<int>(r));
}

void Checkpoint::free() noexcept {
    if (!saved_)
        return;
    saved_ = false;
    if (const CheckpointApi& api = checkpointApi(); api.free)
        api.free(&h_->c);
}

namespace {

bool roomForCheckpoints(std::string& why) {
    const DriverApi* d = driver();
    if (!d || !d->memGetInfo) {
        why = "the CUDA driver lacks cuMemGetInfo, so the room for window replay's memory "
              "checkpoints is unknown";
        return false;
    }
    std::size_t free = 0, total = 0;
    if (d->memGetInfo(&free, &total) != CUDA_SUCCESS) {
        why = "cuMemGetInfo failed, so the room for window replay's memory checkpoints is unknown";
        return false;
    }
    constexpr std::size_t kSpare = std::size_t{256} << 20;
    const std::size_t used = total - free;
    if (free >= 2 * used + kSpare)
        return true;
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    char text[320];
    std::snprintf(text, sizeof text,
                  "the device's memory cannot hold two copies of what is allocated on it "
                  "(%.1f GiB in use, %.1f GiB free), which a window's replay saves -- a pool "
                  "reserved ahead counts as in use (JAX's 75%% of the device is not reserved "
                  "with XLA_PYTHON_CLIENT_PREALLOCATE=false)",
                  static_cast<double>(used) / kGiB, static_cast<double>(free) / kGiB);
    why = text;
    return false;
}

} // namespace

bool checkpointsFit(std::string& why) noexcept {
    try {
        return roomForCheckpoints(why);
    } catch (...) { // out of memory writing why
        return false;
    }
}

bool windowReplayAvailable(std::string* why) noexcept {
    const DriverApi* d = driver();
    if (!d || !d->funcGetParamInfo || !d->launchKernel) {
        if (why)
            *why = "the CUDA driver lacks cuFuncGetParamInfo/cuKernelGetParamInfo (a driver for "
                   "CUDA 12.4 or newer has them)";
        return false;
    }
    const CheckpointApi& api = checkpointApi();
    if (!api.save) {
        if (why)
            *why = api.error;
        return false;
    }
    return true;
}

const std::vector<unsigned>& memoryCallbacks() noexcept {
    static const std::vector<unsigned> ids = [] {
        try {
            return findMemoryCallbacks();
        } catch (...) {
            return std::vector<unsigned>{};
        }
    }();
    return ids;
}

namespace {

std::vector<unsigned> findHostVisibleAllocations() {
    static constexpr std::string_view kPrefixes[] = {"cuMemHostAlloc", "cuMemAllocHost",
                                                     "cuMemHostRegister", "cuMemAllocManaged"};
    return callbacksNamed(kPrefixes);
}

} // namespace

bool allocatesHostVisible(unsigned cbid, const void* params) noexcept {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuMemCreate) {
        const auto* p = static_cast<const cuMemCreate_params*>(params);
        if (!p || !p->prop)
            return true; // unknown: taken as host memory
        const CUmemLocationType t = p->prop->location.type;
        return t != CU_MEM_LOCATION_TYPE_DEVICE && t != CU_MEM_LOCATION_TYPE_INVALID;
    }
    static const std::vector<unsigned> ids = [] {
        try {
            return findHostVisibleAllocations();
        } catch (...) {
            return std::vector<unsigned>{};
        }
    }();
    return std::find(ids.begin(), ids.end(), cbid) != ids.end();
}

bool changesMemory(unsigned cbid) noexcept {
    const std::vector<unsigned>& ids = memoryCallbacks();
    return std::binary_search(ids.begin(), ids.end(), cbid);
}

} // namespace roofline::cupti
