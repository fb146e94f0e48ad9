// EasyPool: HttpClient's curl easy handles, kept configured from one
// transfer to the next (the client's options and callbacks, the trust, the
// url parsed last, the header storage), so a request from the pool only
// sets its url, headers and body. The client takes a handle when a request
// goes to curl and gives it back when curl is done with it; the pool keeps
// up to kSpare of them, resets one whose last use may have left state in
// libcurl, and frees one made under a trust that has since been replaced. A
// long-lived request's handle is made for it and freed after it (its small
// receive buffer stays with the handle). Single-threaded, like the client.
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "daemon/net/http_curl.h"
#include "daemon/net/tls_reason.h"
#include "daemon/net/tls_trust.h"

namespace mcpgw::http {

struct Transfer;

// One easy handle and what it keeps between transfers.
struct EasyHandle {
  explicit EasyHandle(CURL* e) : easy(e) {}
  ~EasyHandle();  // curl_easy_cleanup
  EasyHandle(const EasyHandle&) = delete;
  EasyHandle& operator=(const EasyHandle&) = delete;

  CURL* const easy;
  // Holds the client's options and callbacks (HttpClient's Configure), made
  // under `trust`.
  bool configured = false;
  std::shared_ptr<const TlsTrust> trust;  // kept alive: the TLS callback reads it
  // What OpenSSL reported on the last TLS connection opened for the current
  // transfer (tls_wiring.h); cleared when the handle comes back.
  std::shared_ptr<TlsErrorWatch> tls_watch;
  HeaderLines headers;  // the list curl reads, its storage kept for the next
  ParsedUrl url;        // the url curl reads, kept parsed for the next
  // The current transfer's response head as its lines come; reset when the
  // handle comes back, its storage kept for the next.
  HeadParser head;
  // The transfer it serves now, null in the pool: HttpClient's callbacks
  // get the handle (set once, when it is configured) and find the transfer
  // here.
  Transfer* transfer = nullptr;
};

class EasyPool {
 public:
  // Handles kept for the next transfers.
  static constexpr size_t kSpare = 32;

  EasyPool() = default;
  ~EasyPool();  // frees the spare handles (lent ones must be back)
  EasyPool(const EasyPool&) = delete;
  EasyPool& operator=(const EasyPool&) = delete;

  // A handle for a request: a spare one configured under `trust`, or not
  // configured yet; else a new one. A long-lived request always gets a new
  // one. Null when libcurl cannot make one.
  std::unique_ptr<EasyHandle> Take(bool long_lived, const std::shared_ptr<const TlsTrust>& trust);
  // A handle curl is done with (out of the multi handle). `keep`: it may
  // serve another request (it served no long-lived one and the client stays);
  // `reset`: its last transfer may have left state in libcurl (see
  // HttpClient's GiveBack), so it starts over unconfigured.
  void Give(std::unique_ptr<EasyHandle> handle, bool keep, bool reset);
  // Frees the spare handles now.
  void Clear();

  size_t held() const { return held_; }  // handles alive: lent and spare
  size_t spare() const { return spare_.size(); }

 private:
  std::vector<std::unique_ptr<EasyHandle>> spare_;  // the last given back at the end
  size_t held_ = 0;
};

}  // namespace mcpgw::http
