#include "daemon/net/easy_pool.h"

#include <utility>

namespace mcpgw::http {

EasyHandle::~EasyHandle() { curl_easy_cleanup(easy); }

EasyPool::~EasyPool() { Clear(); }

std::unique_ptr<EasyHandle> EasyPool::Take(bool long_lived,
                                           const std::shared_ptr<const TlsTrust>& trust) {
  while (!long_lived && !spare_.empty()) {
    std::unique_ptr<EasyHandle> handle = std::move(spare_.back());
    spare_.pop_back();
    if (!handle->configured || handle->trust == trust) return handle;
    held_--;  // made for a trust that has been replaced
  }
  CURL* easy = curl_easy_init();
  if (!easy) return nullptr;
  held_++;
  return std::make_unique<EasyHandle>(easy);
}

void EasyPool::Give(std::unique_ptr<EasyHandle> handle, bool keep, bool reset) {
  if (!handle) return;
  if (!keep || spare_.size() >= kSpare) {
    held_--;
    return;
  }
  if (reset) {
    curl_easy_reset(handle->easy);
    handle->configured = false;
    handle->trust.reset();
    handle->url.Forget();
  }
  handle->tls_watch.reset();
  handle->head.Reset();
  handle->transfer = nullptr;
  spare_.push_back(std::move(handle));
}

void EasyPool::Clear() {
  held_ -= spare_.size();
  spare_.clear();
}

}  // namespace mcpgw::http
