#include "daemon/auth/http_fetch.h"

namespace mcpgw::auth {

HttpFetcher::HttpFetcher(HttpTransport* http) : http_(http) {}

HttpFetcher::~HttpFetcher() { http_->AbortAll(this); }

uint64_t HttpFetcher::Start(const HttpCall& call, Done done) {
  const uint64_t id = next_++;
  pending_[id].done = std::move(done);
  HttpRequest req;
  req.method = call.method == "POST" ? HttpMethod::kPost : HttpMethod::kGet;
  req.url = call.url;
  req.headers = call.headers;
  req.body = call.body;
  req.at_most_once = call.at_most_once;
  http_->Start(this, id, std::move(req));
  return id;
}

void HttpFetcher::Abort(uint64_t id) {
  if (pending_.erase(id) > 0) http_->Abort(this, id);
}

void HttpFetcher::OnHttpHead(uint64_t tag, const ResponseHead& head) {
  auto it = pending_.find(tag);
  if (it == pending_.end()) return;
  it->second.result.status = head.status;
  it->second.result.content_type = std::string(head.content_type);
}

void HttpFetcher::OnHttpData(uint64_t tag, std::string_view bytes) {
  auto it = pending_.find(tag);
  if (it == pending_.end()) return;
  FetchResult& r = it->second.result;
  if (r.body.size() + bytes.size() > kMaxDocumentBytes) {
    http_->Abort(this, tag);
    return Finish(
        tag, base::Status(base::ErrorKind::kTransport,
                          "response exceeds " + std::to_string(kMaxDocumentBytes >> 10) + " KiB"));
  }
  r.body.append(bytes);
}

void HttpFetcher::OnHttpDone(uint64_t tag, const TransferResult& result) {
  auto it = pending_.find(tag);
  if (it == pending_.end()) return;
  if (!result.ok) return Finish(tag, base::Status(base::ErrorKind::kTransport, result.error));
  Finish(tag, std::move(it->second.result));
}

void HttpFetcher::Finish(uint64_t tag, base::Result<FetchResult> result) {
  auto it = pending_.find(tag);
  if (it == pending_.end()) return;
  Done done = std::move(it->second.done);
  pending_.erase(it);
  if (done) done(result);
}

}  // namespace mcpgw::auth
