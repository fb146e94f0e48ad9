// What differs between the systems mcpgw builds on (Linux, macOS), behind one
// interface: every caller is the same on both, and the differences live in
// platform_linux.cc and platform_macos.cc (CMake builds the one that fits).
// The standard library and the C library only: libmcpgw links this.
#pragma once

#include <sys/stat.h>

#include <ctime>
#include <string>
#include <string_view>

namespace mcpgw::base {

// socket(domain, type, protocol) whose descriptor is close-on-exec, and
// non-blocking when `nonblocking`; on macOS it also never raises SIGPIPE
// (SO_NOSIGPIPE). -1 with errno set on failure.
int OpenSocket(int domain, int type, int protocol, bool nonblocking);

// The send()/sendmsg() flag that keeps a write to a closed peer from raising
// SIGPIPE: MSG_NOSIGNAL on Linux; 0 on macOS, where OpenSocket's SO_NOSIGPIPE
// does it (a socket from elsewhere needs SetNoSigPipe). A function, not a
// constant: mcpgw_base is linked into programs and into libmcpgw both, and a
// global defined in both is one definition too many (ASan's ODR check).
int SendNoSignal();
// Sets SO_NOSIGPIPE on `fd` where the system has it (macOS); true elsewhere.
bool SetNoSigPipe(int fd);

// Names the calling thread for ps, top and debuggers; a longer name is cut
// to what the system keeps (15 bytes on Linux, 63 on macOS).
void NameThisThread(std::string_view name);
// The most a thread name keeps on this system, in bytes.
size_t MaxThreadNameLength();

// Reads all of `text` as a decimal floating-point number in the "C" locale,
// whatever the process's locale says about the decimal point: an optional
// sign, digits with an optional '.' and exponent, or "inf" / "nan" as strtod
// spells them; no hexadecimal, nothing around it (no white space, no
// trailing bytes).
enum class ParseDoubleResult {
  kOk,          // *out is the number (a subnormal one included)
  kOutOfRange,  // too large (*out is ±HUGE_VAL) or too small (*out is ±0)
  kInvalid,     // not a number, or bytes after it; *out untouched
};
ParseDoubleResult ParseDouble(std::string_view text, double* out);

// When `st` says its file was last modified.
timespec ModifiedTime(const struct stat& st);

// The absolute path of the running program (/proc/self/exe; on macOS
// _NSGetExecutablePath, resolved), or "" when the system cannot tell.
std::string ExecutablePath();

namespace platform_detail {
// strtod in the "C" locale (platform_linux.cc / platform_macos.cc).
double StrtodC(const char* s, char** end);
}  // namespace platform_detail

}  // namespace mcpgw::base
