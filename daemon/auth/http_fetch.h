// HttpFetcher: the OAuth client's HTTP requests (discovery documents,
// registration, token and revocation requests) run as whole-response fetches
// on an HttpTransport: the body is collected up to kMaxDocumentBytes and handed
// over once, with status and content type. Same policy as every upstream
// transfer (no redirects, http and https only). Loop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

#include "base/status.h"
#include "daemon/auth/flow.h"
#include "daemon/net/http_client.h"

namespace mcpgw::auth {

class HttpFetcher : private HttpSink {
 public:
  // The answer, or why the exchange did not complete (transport).
  using Done = std::function<void(const base::Result<FetchResult>&)>;

  explicit HttpFetcher(HttpTransport* http);
  ~HttpFetcher() override;  // aborts what is running, without callbacks
  HttpFetcher(const HttpFetcher&) = delete;
  HttpFetcher& operator=(const HttpFetcher&) = delete;

  // Starts `call`; `done` runs exactly once unless Abort()ed first. Returns
  // the fetch's id.
  uint64_t Start(const HttpCall& call, Done done);
  void Abort(uint64_t id);

 private:
  struct Pending {
    FetchResult result;
    Done done;
  };
  void OnHttpHead(uint64_t tag, const ResponseHead& head) override;
  void OnHttpData(uint64_t tag, std::string_view bytes) override;
  void OnHttpDone(uint64_t tag, const TransferResult& result) override;
  void Finish(uint64_t tag, base::Result<FetchResult> result);

  HttpTransport* http_;
  uint64_t next_ = 1;
  std::unordered_map<uint64_t, Pending> pending_;
};

}  // namespace mcpgw::auth
