#include "nvtx/listener.hpp"

#include "core/option_table.hpp"

#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstdlib>
#include <cwchar>
#include <dlfcn.h>
#include <mutex>
#include <string>
#include <unordered_set>

namespace roofline::nvtx {
namespace {

std::atomic<Listener*> gListener{nullptr};
std::atomic<int> gAttached{0};
std::atomic<std::uint64_t> gNextRangeId{1};
std::string gOtherInjection;
bool gOwnVisible = false;
thread_local bool tOwnCall = false; // ProfileScope's own push/pop in flight on this thread

// Domains and registered strings are handles we hand out: pointers to interned names that live
// until the process ends (NVTX handles may be used from any thread at any time).
struct Names {
    std::mutex mutex;
    std::unordered_set<std::string> set;
    const char* intern(const std::string& s) {
        std::lock_guard<std::mutex> lock(mutex);
        return set.insert(s).first->c_str();
    }
};
Names& names() {
    static Names* n = new Names(); // never destroyed: handles outlive static destruction
    return *n;
}

std::string narrow(const wchar_t* w) {
    std::string out;
    if (!w)
        return out;
    for (; *w; ++w)
        out += (*w >= 0 && *w < 128) ? static_cast<char>(*w) : '?';
    return out;
}

const char* domainName(nvtxDomainHandle_t d) {
    return d ? reinterpret_cast<const char*>(d) : "";
}

const char* messageOf(const nvtxEventAttributes_t* a) {
    if (!a)
        return "";
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return a->message.ascii ? a->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
        return names().intern(narrow(a->message.unicode));
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return a->message.registered ? reinterpret_cast<const char*>(a->message.registered) : "";
    default:
        return "";
    }
}

thread_local int tDepth = 0;

int doPush(const char* domain, const char* name) {
    if (!tOwnCall)
        if (Listener* l = gListener.load(std::memory_order_acquire))
            l->push(domain, name ? name : "");
    return tDepth++;
}
int doPop(const char* domain) {
    if (!tOwnCall)
        if (Listener* l = gListener.load(std::memory_order_acquire))
            l->pop(domain);
    return tDepth > 0 ? --tDepth : -1;
}
nvtxRangeId_t doStart(const char* domain, const char* name) {
    const std::uint64_t id = gNextRangeId.fetch_add(1);
    if (Listener* l = gListener.load(std::memory_order_acquire))
        l->start(id, domain, name ? name : "");
    return id;
}
void doEnd(nvtxRangeId_t id) {
    if (Listener* l = gListener.load(std::memory_order_acquire))
        l->end(id);
}

int NVTX_API rangePushA(const char* m) {
    return doPush("", m);
}
int NVTX_API rangePushW(const wchar_t* m) {
    return doPush("", names().intern(narrow(m)));
}
int NVTX_API rangePushEx(const nvtxEventAttributes_t* a) {
    return doPush("", messageOf(a));
}
int NVTX_API rangePop() {
    return doPop("");
}
nvtxRangeId_t NVTX_API rangeStartA(const char* m) {
    return doStart("", m);
}
nvtxRangeId_t NVTX_API rangeStartW(const wchar_t* m) {
    return doStart("", names().intern(narrow(m)));
}
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* a) {
    return doStart("", messageOf(a));
}
void NVTX_API rangeEnd(nvtxRangeId_t id) {
    doEnd(id);
}

int NVTX_API domainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    return doPush(domainName(d), messageOf(a));
}
int NVTX_API domainRangePop(nvtxDomainHandle_t d) {
    return doPop(domainName(d));
}
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a) {
    return doStart(domainName(d), messageOf(a));
}
void NVTX_API domainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t id) {
    doEnd(id);
}
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name) {
    return reinterpret_cast<nvtxDomainHandle_t>(
        const_cast<char*>(names().intern(name ? name : "")));
}
nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name) {
    return reinterpret_cast<nvtxDomainHandle_t>(const_cast<char*>(names().intern(narrow(name))));
}
void NVTX_API domainDestroy(nvtxDomainHandle_t) {}
nvtxStringHandle_t NVTX_API registerStringA(nvtxDomainHandle_t, const char* s) {
    return reinterpret_cast<nvtxStringHandle_t>(const_cast<char*>(names().intern(s ? s : "")));
}
nvtxStringHandle_t NVTX_API registerStringW(nvtxDomainHandle_t, const wchar_t* s) {
    return reinterpret_cast<nvtxStringHandle_t>(const_cast<char*>(names().intern(narrow(s))));
}

template <typename F> void install(NvtxFunctionTable table, unsigned size, unsigned id, F f) {
    if (table && id < size && table[id])
        *table[id] = reinterpret_cast<NvtxFunctionPointer>(f);
}

int attach(NvtxGetExportTableFunc_t getExportTable) {
    const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(
        getExportTable ? getExportTable(NVTX_ETID_CALLBACKS) : nullptr);
    if (!callbacks || !callbacks->GetModuleFunctionTable)
        return 0;
    NvtxFunctionTable core = nullptr;
    unsigned coreSize = 0;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &coreSize))
        return 0;
    install(core, coreSize, NVTX_CBID_CORE_RangePushA, &rangePushA);
    install(core, coreSize, NVTX_CBID_CORE_RangePushW, &rangePushW);
    install(core, coreSize, NVTX_CBID_CORE_RangePushEx, &rangePushEx);
    install(core, coreSize, NVTX_CBID_CORE_RangePop, &rangePop);
    install(core, coreSize, NVTX_CBID_CORE_RangeStartA, &rangeStartA);
    install(core, coreSize, NVTX_CBID_CORE_RangeStartW, &rangeStartW);
    install(core, coreSize, NVTX_CBID_CORE_RangeStartEx, &rangeStartEx);
    install(core, coreSize, NVTX_CBID_CORE_RangeEnd, &rangeEnd);
    NvtxFunctionTable core2 = nullptr;
    unsigned core2Size = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2Size)) {
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePushEx, &domainRangePushEx);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePop, &domainRangePop);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangeStartEx, &domainRangeStartEx);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangeEnd, &domainRangeEnd);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainCreateA, &domainCreateA);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainCreateW, &domainCreateW);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainDestroy, &domainDestroy);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringA, &registerStringA);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringW, &registerStringW);
    }
    gAttached.fetch_add(1);
    return 1;
}

// ROOFLINE_NVTX as the options table reads it (0, off, false, no); a value it refuses leaves
// listening on (the session says what is wrong with it when it reads its options).
bool listeningTurnedOff() noexcept {
    const char* v = std::getenv("ROOFLINE_NVTX");
    const core::OptionRow* row = core::optionRow("ROOFLINE_NVTX");
    if (!v || !row || !row->parse)
        return false;
    try {
        Options o;
        row->parse(o, v);
        return !o.listenNvtx;
    } catch (...) {
        return false;
    }
}

// At load: become the NVTX injection unless a tool already is (or ROOFLINE_NVTX=0).
__attribute__((constructor)) void prepareInjection() {
    if (listeningTurnedOff())
        return;
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&attach), &info) || !info.dli_fname)
        return;
    const char* current = std::getenv("NVTX_INJECTION64_PATH");
    if (current && *current) {
        if (std::string(current) != info.dli_fname) {
            gOtherInjection = current;
            gOwnVisible = true;
        }
        return;
    }
    setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}

} // namespace

void setListener(Listener* listener) noexcept {
    gListener.store(listener, std::memory_order_release);
}
int attachedInstances() noexcept {
    return gAttached.load();
}
const std::string& otherInjection() noexcept {
    return gOtherInjection;
}
bool ownRangesVisible() noexcept {
    return gOwnVisible;
}
void pushOwn(const char* name) noexcept {
    tOwnCall = true;
    nvtxRangePushA(name);
    tOwnCall = false;
}
void popOwn() noexcept {
    tOwnCall = true;
    nvtxRangePop();
    tOwnCall = false;
}

} // namespace roofline::nvtx

extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable) {
    return roofline::nvtx::attach(getExportTable);
}
