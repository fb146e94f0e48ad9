#include "daemon/gateway/metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>

#include "base/utf8.h"

namespace mcpgw {
namespace {

void AppendNumber(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void AppendLabelValue(std::string& out, std::string_view value) {
  std::string replaced;
  if (!base::IsValidUtf8(value)) {
    replaced = base::Utf8Replacing(value);
    value = replaced;
  }
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace

std::string_view CallEndName(CallEnd end) {
  switch (end) {
    case CallEnd::kOk:
      return "ok";
    case CallEnd::kBackend:
      return "backend";
    case CallEnd::kTransport:
      return "transport";
    case CallEnd::kDenied:
      return "denied";
    case CallEnd::kNotReady:
      return "not_ready";
    case CallEnd::kInvalidRequest:
      return "invalid_request";
    case CallEnd::kCancelled:
      break;
  }
  return "cancelled";
}

void CallMetrics::Observe(double seconds) {
  size_t i = 0;
  while (i < kDurationBuckets.size() && seconds > kDurationBuckets[i]) ++i;
  buckets[i]++;
  duration_sum_s += seconds;
}

uint64_t CallMetrics::observed() const {
  uint64_t n = 0;
  for (uint64_t b : buckets) n += b;
  return n;
}

void MetricsWriter::Family(std::string_view name, std::string_view type, std::string_view help) {
  out_ += "# HELP ";
  out_ += name;
  out_ += ' ';
  out_ += help;
  out_ += "\n# TYPE ";
  out_ += name;
  out_ += ' ';
  out_ += type;
  out_ += '\n';
}

void MetricsWriter::Head(std::string_view name, Labels labels, std::string_view extra_name,
                         std::string_view extra_value) {
  out_ += name;
  if (labels.size() == 0 && extra_name.empty()) {
    out_ += ' ';
    return;
  }
  out_ += '{';
  bool first = true;
  for (const auto& [key, value] : labels) {
    if (!first) out_ += ',';
    first = false;
    out_ += key;
    out_ += "=\"";
    AppendLabelValue(out_, value);
    out_ += '"';
  }
  if (!extra_name.empty()) {
    if (!first) out_ += ',';
    out_ += extra_name;
    out_ += "=\"";
    out_ += extra_value;
    out_ += '"';
  }
  out_ += "} ";
}

void MetricsWriter::Sample(std::string_view name, Labels labels, double value) {
  Head(name, labels);
  AppendNumber(out_, value);
  out_ += '\n';
}

void MetricsWriter::Sample(std::string_view name, Labels labels, uint64_t value) {
  Head(name, labels);
  out_ += std::to_string(value);
  out_ += '\n';
}

void MetricsWriter::Histogram(std::string_view name, std::string_view ns, const CallMetrics& m) {
  const std::string bucket = std::string(name) + "_bucket";
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= kDurationBuckets.size(); ++i) {
    cumulative += m.buckets[i];
    std::string le;
    if (i < kDurationBuckets.size()) {
      AppendNumber(le, kDurationBuckets[i]);
    } else {
      le = "+Inf";
    }
    Head(bucket, {{"namespace", ns}}, "le", le);
    out_ += std::to_string(cumulative);
    out_ += '\n';
  }
  Sample(std::string(name) + "_sum", {{"namespace", ns}}, m.duration_sum_s);
  Sample(std::string(name) + "_count", {{"namespace", ns}}, cumulative);
}

ProcessFigures ReadProcessFigures() {
  ProcessFigures f;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    unsigned long pages = 0, resident = 0;
    if (std::fscanf(statm, "%lu %lu", &pages, &resident) == 2) {
      f.resident_bytes =
          static_cast<uint64_t>(resident) * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    }
    std::fclose(statm);
  }
  if (DIR* dir = ::opendir("/proc/self/fd")) {
    while (const dirent* e = ::readdir(dir)) {
      if (e->d_name[0] != '.') f.open_fds++;
    }
    ::closedir(dir);
    if (f.open_fds > 0) f.open_fds--;  // the directory's own descriptor
  }
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    f.max_fds = static_cast<uint64_t>(limit.rlim_cur);
  }
  return f;
}

}  // namespace mcpgw
