#include "daemon/net/origin_budget.h"

#include <algorithm>
#include <atomic>

#include "base/text.h"
#include "daemon/net/transfer.h"

namespace mcpgw::http {

std::string OriginBudget::OriginOf(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return std::string(url);
  const size_t start = scheme_end + 3;
  size_t end = url.find_first_of("/?#", start);
  if (end == std::string_view::npos) end = url.size();
  const size_t at = url.rfind('@', end);
  const size_t host = at != std::string_view::npos && at >= start ? at + 1 : start;
  std::string origin;
  origin.reserve(start + (end - host));
  origin.append(url.substr(0, start)).append(url.substr(host, end - host));
  for (char& c : origin) c = base::ToLowerAscii(c);
  return origin;
}

Origin& OriginBudget::Find(const std::string& url) {
  if (url != last_url_) {
    last_origin_ = OriginOf(url);
    last_url_ = url;
  }
  auto it = origins_.find(last_origin_);
  if (it == origins_.end()) {
    it = origins_.emplace(last_origin_, Origin{}).first;
    it->second.name = it->first;
  }
  return it->second;
}

bool OriginBudget::Admit(Transfer& t) {
  if (per_origin_ == 0 || t.request.long_lived) return true;
  Origin& o = Find(t.request.url);
  t.origin = &o;
  if (o.active < per_origin_ && o.waiting.empty()) {
    o.active++;
    return true;
  }
  o.waiting.push_back(&t);
  if (t.request.queued_gauge) t.request.queued_gauge->fetch_add(1, std::memory_order_relaxed);
  return false;
}

void OriginBudget::Cancel(Transfer& t) {
  if (!t.origin) return;
  Origin& o = *t.origin;
  auto it = std::find(o.waiting.begin(), o.waiting.end(), &t);
  if (it == o.waiting.end()) return;
  o.waiting.erase(it);
  Unqueue(t);
  t.origin = nullptr;
  ForgetIfIdle(o);
}

void OriginBudget::GiveBack(Transfer& t, std::vector<Transfer*>& promoted) {
  if (!t.origin) return;
  Origin& o = *t.origin;
  t.origin = nullptr;
  o.active--;
  while (o.active < per_origin_ && !o.waiting.empty()) {
    Transfer* next = o.waiting.front();
    o.waiting.pop_front();
    Unqueue(*next);  // its origin stays: it holds a place there now
    o.active++;
    promoted.push_back(next);
  }
  ForgetIfIdle(o);
}

// The request leaves its origin's queue: its gauge no longer counts it.
void OriginBudget::Unqueue(Transfer& t) {
  if (t.request.queued_gauge) t.request.queued_gauge->fetch_sub(1, std::memory_order_relaxed);
}

size_t OriginBudget::waiting() const {
  size_t n = 0;
  for (const auto& [name, o] : origins_) n += o.waiting.size();
  return n;
}

void OriginBudget::ForgetIfIdle(Origin& o) {
  if (o.active > 0 || !o.waiting.empty()) return;
  origins_.erase(origins_.find(o.name));
}

}  // namespace mcpgw::http
