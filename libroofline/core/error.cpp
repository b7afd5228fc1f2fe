#include <roofline/error.hpp>

namespace roofline {

const char* toString(ErrorCode code) noexcept {
    switch (code) {
    case ErrorCode::InvalidArgument:
        return "InvalidArgument";
    case ErrorCode::UnsupportedChip:
        return "UnsupportedChip";
    case ErrorCode::UnknownMetric:
        return "UnknownMetric";
    case ErrorCode::NoDevice:
        return "NoDevice";
    case ErrorCode::InsufficientPrivileges:
        return "InsufficientPrivileges";
    case ErrorCode::ProfilerBusy:
        return "ProfilerBusy";
    case ErrorCode::Cupti:
        return "Cupti";
    case ErrorCode::Cuda:
        return "Cuda";
    case ErrorCode::Io:
        return "Io";
    case ErrorCode::CorruptRecording:
        return "CorruptRecording";
    case ErrorCode::UnsupportedVersion:
        return "UnsupportedVersion";
    case ErrorCode::InvalidState:
        return "InvalidState";
    }
    return "Unknown";
}

Error::Error(ErrorCode code, const std::string& message, int rawStatus)
    : std::runtime_error(message), code_(code), rawStatus_(rawStatus) {}

} // namespace roofline
