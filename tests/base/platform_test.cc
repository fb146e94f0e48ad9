// base/platform: sockets, thread names, locale-free numbers, file times.
#include "base/platform.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>

namespace mcpgw::base {
namespace {

TEST_CASE("OpenSocket's descriptor is close-on-exec, non-blocking when asked", "[base][platform]") {
  for (bool nonblocking : {false, true}) {
    const int fd = OpenSocket(AF_UNIX, SOCK_STREAM, 0, nonblocking);
    REQUIRE(fd >= 0);
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    CHECK(((fcntl(fd, F_GETFL) & O_NONBLOCK) != 0) == nonblocking);
    int type = 0;
    socklen_t len = sizeof(type);
    REQUIRE(getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0);
    CHECK(type == SOCK_STREAM);
    close(fd);
  }
  const int dgram = OpenSocket(AF_INET, SOCK_DGRAM, 0, true);
  REQUIRE(dgram >= 0);
  CHECK((fcntl(dgram, F_GETFD) & FD_CLOEXEC) != 0);
  close(dgram);
}

TEST_CASE("OpenSocket fails with errno for what socket() refuses", "[base][platform]") {
  errno = 0;
  CHECK(OpenSocket(-1, SOCK_STREAM, 0, false) == -1);
  CHECK(errno != 0);
}

TEST_CASE("a write to a closed peer with SendNoSignal() raises no SIGPIPE", "[base][platform]") {
  int pair[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  CHECK(SetNoSigPipe(pair[0]));
  close(pair[1]);
  // Without the flag (or SO_NOSIGPIPE) this kills the test process.
  errno = 0;
  CHECK(send(pair[0], "x", 1, SendNoSignal()) == -1);
  CHECK(errno == EPIPE);
  close(pair[0]);
}

std::string ThisThreadName() {
  char name[64] = {};
  REQUIRE(pthread_getname_np(pthread_self(), name, sizeof(name)) == 0);
  return name;
}

TEST_CASE("NameThisThread names the calling thread, cut to what the system keeps",
          "[base][platform]") {
  std::string short_name, long_name;
  std::thread([&] {
    NameThisThread("mcpgw-test");
    short_name = ThisThreadName();
    NameThisThread(std::string(100, 'n'));
    long_name = ThisThreadName();
  }).join();
  CHECK(short_name == "mcpgw-test");
  CHECK(long_name == std::string(MaxThreadNameLength(), 'n'));
}

TEST_CASE("ParseDouble reads whole decimal numbers", "[base][platform]") {
  double d = -1;
  CHECK(ParseDouble("1.5", &d) == ParseDoubleResult::kOk);
  CHECK(d == 1.5);
  CHECK(ParseDouble("-0.25e2", &d) == ParseDoubleResult::kOk);
  CHECK(d == -25);
  CHECK(ParseDouble("0", &d) == ParseDoubleResult::kOk);
  CHECK(d == 0);
  CHECK(ParseDouble("-0", &d) == ParseDoubleResult::kOk);
  CHECK(std::signbit(d));
  CHECK(ParseDouble("0e300", &d) == ParseDoubleResult::kOk);
  CHECK(d == 0);
  // Exact: the nearest double, as from_chars gives it.
  CHECK(ParseDouble("0.1", &d) == ParseDoubleResult::kOk);
  CHECK(d == 0.1);
  CHECK(ParseDouble("9007199254740993", &d) == ParseDoubleResult::kOk);
  CHECK(d == 9007199254740992.0);
  CHECK(ParseDouble("1.7976931348623157e308", &d) == ParseDoubleResult::kOk);
  CHECK(d == std::numeric_limits<double>::max());
  // Longer than the parser's stack copy.
  CHECK(ParseDouble("1." + std::string(300, '0') + "5", &d) == ParseDoubleResult::kOk);
  CHECK(d == 1.0);
  CHECK(ParseDouble("0." + std::string(300, '0') + "1e302", &d) == ParseDoubleResult::kOk);
  CHECK(d == 10.0);
  CHECK(ParseDouble(std::string(300, '1') + "x", &d) == ParseDoubleResult::kInvalid);
  // A subnormal is a number, not an underflow.
  CHECK(ParseDouble("4.9406564584124654e-324", &d) == ParseDoubleResult::kOk);
  CHECK(d == std::numeric_limits<double>::denorm_min());
}

TEST_CASE("ParseDouble tells overflow and underflow", "[base][platform]") {
  double d = 0;
  CHECK(ParseDouble("1e309", &d) == ParseDoubleResult::kOutOfRange);
  CHECK(std::isinf(d));
  CHECK(d > 0);
  CHECK(ParseDouble("-1e400", &d) == ParseDoubleResult::kOutOfRange);
  CHECK(std::isinf(d));
  CHECK(d < 0);
  CHECK(ParseDouble("1e-400", &d) == ParseDoubleResult::kOutOfRange);
  CHECK(d == 0);
}

TEST_CASE("ParseDouble refuses garbage, partial numbers and hexadecimal", "[base][platform]") {
  for (const char* bad : {"", " 1", "\t1", "1 ", "1x", "1.5.5", "abc", "-", ".", "e5", "1e", "0x10",
                          "0X1p3", "1,5", "--1"}) {
    double d = 42;
    CAPTURE(bad);
    CHECK(ParseDouble(bad, &d) == ParseDoubleResult::kInvalid);
    CHECK(d == 42);
  }
  double d = 42;
  CHECK(ParseDouble(std::string_view("1\0"
                                     "5",
                                     3),
                    &d) == ParseDoubleResult::kInvalid);
  // Only the view's bytes count, not what follows them in memory.
  CHECK(ParseDouble(std::string_view("2.5e1", 3), &d) == ParseDoubleResult::kOk);
  CHECK(d == 2.5);
}

TEST_CASE("ParseDouble does not follow the process's locale", "[base][platform]") {
  const std::string saved = std::setlocale(LC_NUMERIC, nullptr);
  bool comma_locale = false;
  for (const char* name : {"de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "C.UTF-8"}) {
    if (std::setlocale(LC_NUMERIC, name) == nullptr) continue;
    comma_locale = std::strtod("1,5", nullptr) == 1.5;
    double d = 0;
    CAPTURE(name);
    CHECK(ParseDouble("1.5", &d) == ParseDoubleResult::kOk);
    CHECK(d == 1.5);
    CHECK(ParseDouble("1,5", &d) == ParseDoubleResult::kInvalid);
  }
  std::setlocale(LC_NUMERIC, saved.c_str());
  if (!comma_locale) WARN("no locale with a decimal comma is installed; checked the others only");
}

TEST_CASE("ModifiedTime is the file's modification time", "[base][platform]") {
  char path[] = "/tmp/mcpgw-platform-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  const timespec times[2] = {{1000, 0}, {1234567890, 123456789}};
  REQUIRE(futimens(fd, times) == 0);
  struct stat st {};
  REQUIRE(fstat(fd, &st) == 0);
  const timespec t = ModifiedTime(st);
  CHECK(t.tv_sec == 1234567890);
  CHECK(t.tv_nsec == 123456789);
  close(fd);
  unlink(path);
}

}  // namespace
}  // namespace mcpgw::base
