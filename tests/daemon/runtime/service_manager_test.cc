// mcpgwd speaks systemd's socket activation and readiness protocols itself:
// the descriptors and variables a service manager passes, and the datagrams
// it sends back.
#include "daemon/runtime/service_manager.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include <catch2/catch.hpp>

namespace mcpgw {
namespace {

// Puts a socket at descriptor 3 for the test's length (whatever was there
// comes back afterwards), as a service manager hands over its socket.
class PassedSocket {
 public:
  PassedSocket() {
    saved_ = fcntl(kFirstPassedFd, F_DUPFD_CLOEXEC, 10);
    // Made above 3 first: with 3 free, socket() itself would return it.
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd >= 0);
    const int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    REQUIRE(high >= 10);
    REQUIRE(dup2(high, kFirstPassedFd) == kFirstPassedFd);  // inherited: no close-on-exec
    close(high);
  }
  ~PassedSocket() {
    if (saved_ >= 0) {
      dup2(saved_, kFirstPassedFd);
      close(saved_);
    } else {
      close(kFirstPassedFd);
    }
  }
  PassedSocket(const PassedSocket&) = delete;
  PassedSocket& operator=(const PassedSocket&) = delete;

 private:
  int saved_ = -1;
};

void SetListenVariables(const std::string& pid, const char* fds) {
  setenv("LISTEN_PID", pid.c_str(), 1);
  setenv("LISTEN_FDS", fds, 1);
  setenv("LISTEN_FDNAMES", "mcpgwd.socket", 1);
}

bool Set(const char* name) { return std::getenv(name) != nullptr; }

TEST_CASE("a socket passed by the service manager is taken once and made close-on-exec",
          "[runtime]") {
  PassedSocket passed;
  SetListenVariables(std::to_string(getpid()), "1");
  const base::Result<int> fds = TakePassedFds();
  REQUIRE(fds.ok());
  CHECK(*fds == 1);
  CHECK((fcntl(kFirstPassedFd, F_GETFD) & FD_CLOEXEC) != 0);
  // The variables are gone: a program the daemon starts does not see them,
  // and asking again finds nothing.
  CHECK_FALSE(Set("LISTEN_PID"));
  CHECK_FALSE(Set("LISTEN_FDS"));
  CHECK_FALSE(Set("LISTEN_FDNAMES"));
  CHECK(*TakePassedFds() == 0);
}

TEST_CASE("variables meant for another process are left alone", "[runtime]") {
  PassedSocket passed;
  SetListenVariables(std::to_string(getpid() + 1), "1");
  const base::Result<int> fds = TakePassedFds();
  REQUIRE(fds.ok());
  CHECK(*fds == 0);
  CHECK(Set("LISTEN_PID"));
  CHECK((fcntl(kFirstPassedFd, F_GETFD) & FD_CLOEXEC) == 0);
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  unsetenv("LISTEN_FDNAMES");
  CHECK(*TakePassedFds() == 0);  // no variables: no service manager
}

TEST_CASE("a count that cannot be read or a descriptor not open is an error", "[runtime]") {
  for (const char* bad : {"", "one", "1x", "-1", "99999999999"}) {
    SetListenVariables(std::to_string(getpid()), bad);
    const base::Result<int> fds = TakePassedFds();
    CHECK_FALSE(fds.ok());
    CHECK(fds.message() == "LISTEN_FDS from the service manager is not a count of descriptors");
    CHECK_FALSE(Set("LISTEN_FDS"));
  }
  // Descriptors 3 .. 3 + 200 cannot all be open in a test process.
  SetListenVariables(std::to_string(getpid()), "200");
  const base::Result<int> fds = TakePassedFds();
  CHECK_FALSE(fds.ok());
  CHECK(fds.message().find("from the service manager is not open") != std::string::npos);
}

// A datagram socket standing in for NOTIFY_SOCKET; `abstract`: in the
// abstract namespace ("@name"), else at a path.
class NotifyListener {
 public:
  explicit NotifyListener(bool abstract) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    const std::string id = std::to_string(getpid());
    name_ = abstract ? "@mcpgw-notify-test-" + id : "/tmp/mcpgw-notify-test-" + id + ".sock";
    unlink(name_.c_str());
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, name_.data(), name_.size());
    if (abstract) address.sun_path[0] = '\0';
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_.size());
    REQUIRE(bind(fd_, reinterpret_cast<sockaddr*>(&address), length) == 0);
    timeval timeout{2, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~NotifyListener() {
    close(fd_);
    if (name_[0] == '/') unlink(name_.c_str());
  }
  NotifyListener(const NotifyListener&) = delete;
  NotifyListener& operator=(const NotifyListener&) = delete;

  const std::string& name() const { return name_; }
  std::string Receive() {
    char buf[256];
    const ssize_t n = recv(fd_, buf, sizeof buf, 0);
    return n < 0 ? "" : std::string(buf, static_cast<size_t>(n));
  }

 private:
  int fd_ = -1;
  std::string name_;
};

TEST_CASE("readiness goes to NOTIFY_SOCKET at a path or in the abstract namespace", "[runtime]") {
  for (const bool abstract : {false, true}) {
    NotifyListener listener(abstract);
    setenv("NOTIFY_SOCKET", listener.name().c_str(), 1);
    CHECK(NotifyServiceManager("READY=1"));
    CHECK(listener.Receive() == "READY=1");
    CHECK(NotifyServiceManager("STOPPING=1"));
    CHECK(listener.Receive() == "STOPPING=1");
  }
}

TEST_CASE("without a service manager or with one not listening nothing is sent", "[runtime]") {
  unsetenv("NOTIFY_SOCKET");
  CHECK_FALSE(NotifyServiceManager("READY=1"));
  setenv("NOTIFY_SOCKET", "/nonexistent/mcpgw-notify.sock", 1);
  CHECK_FALSE(NotifyServiceManager("READY=1"));
  // Neither a path nor an abstract name, or too long for a socket address.
  const std::string too_long = "/" + std::string(200, 'x');
  for (const std::string& bad :
       {std::string("relative.sock"), std::string("@"), std::string("vsock:2:1234"), too_long}) {
    setenv("NOTIFY_SOCKET", bad.c_str(), 1);
    CHECK_FALSE(NotifyServiceManager("READY=1"));
  }
  unsetenv("NOTIFY_SOCKET");
}

}  // namespace
}  // namespace mcpgw
