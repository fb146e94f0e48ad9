#include "daemon/runtime/logging.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include "daemon/runtime/scrub.h"

namespace mcpgw {
namespace {

// "%*" in the pattern: the sd-daemon(3) priority prefix for journald.
class JournalPriorityFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    static constexpr const char* kPrefix[] = {"<7>", "<7>", "<6>", "<4>", "<3>", "<2>", ""};
    const char* p = kPrefix[static_cast<int>(msg.level)];
    dest.append(p, p + std::char_traits<char>::length(p));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<JournalPriorityFlag>();
  }
};

// The snapshot in force. Loggers on every thread read it; a reload swaps it.
// The snapshot every logging thread reads. A mutex, not
// std::atomic<shared_ptr>: libstdc++ 12's lock bit is invisible to TSan, and a
// copy under an uncontended lock costs nothing next to formatting a line.
struct ScrubberSlot {
  std::mutex mu;
  std::shared_ptr<const Scrubber> current;
};

ScrubberSlot& CurrentScrubber() {
  static ScrubberSlot slot;
  return slot;
}

std::shared_ptr<const Scrubber> LoadScrubber() {
  ScrubberSlot& slot = CurrentScrubber();
  std::lock_guard<std::mutex> lock(slot.mu);
  return slot.current;
}

// Only the message text can hold a secret: the timestamp, level and logger
// name around it are the daemon's own, so they are left alone (a 4-byte
// header value such as "info" must not mangle the level).
class ScrubbingSink : public spdlog::sinks::sink {
 public:
  explicit ScrubbingSink(std::shared_ptr<spdlog::sinks::sink> inner) : inner_(std::move(inner)) {}

  void log(const spdlog::details::log_msg& msg) override {
    std::shared_ptr<const Scrubber> scrubber = LoadScrubber();
    if (!scrubber || scrubber->empty()) {
      inner_->log(msg);
      return;
    }
    std::string_view payload(msg.payload.data(), msg.payload.size());
    if (!scrubber->Matches(payload)) {
      inner_->log(msg);
      return;
    }
    std::string clean = scrubber->Scrub(payload);
    spdlog::details::log_msg copy = msg;
    copy.payload = spdlog::string_view_t(clean.data(), clean.size());
    inner_->log(copy);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
};

}  // namespace

void SetLogScrubber(std::shared_ptr<const Scrubber> scrubber) {
  ScrubberSlot& slot = CurrentScrubber();
  std::lock_guard<std::mutex> lock(slot.mu);
  slot.current = std::move(scrubber);
}

std::string ScrubbedForLog(std::string_view text) {
  std::shared_ptr<const Scrubber> scrubber;
  {
    ScrubberSlot& slot = CurrentScrubber();
    std::lock_guard<std::mutex> lock(slot.mu);
    scrubber = slot.current;
  }
  return scrubber ? scrubber->Scrub(text) : std::string(text);
}

std::shared_ptr<spdlog::sinks::sink> MakeScrubbingSink(std::shared_ptr<spdlog::sinks::sink> inner) {
  return std::make_shared<ScrubbingSink>(std::move(inner));
}

void SetUpLogging(const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>(
      "mcpgwd", MakeScrubbingSink(std::make_shared<spdlog::sinks::stderr_sink_mt>()));
  const char* journal = std::getenv("JOURNAL_STREAM");
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  if (journal && *journal) {
    // journald adds its own timestamps.
    formatter->add_flag<JournalPriorityFlag>('*').set_pattern("%*%v");
  } else {
    formatter->set_pattern("%Y-%m-%dT%H:%M:%S.%e %l %v");
  }
  logger->set_formatter(std::move(formatter));
  spdlog::set_default_logger(logger);

  std::string wanted = level;
  if (wanted.empty()) {
    const char* env = std::getenv("MCPGW_LOG");
    wanted = env ? env : "";
  }
  if (wanted.empty()) wanted = "info";
  auto lvl = spdlog::level::from_str(wanted);
  if (lvl == spdlog::level::off && wanted != "off") {
    spdlog::warn("unknown log level \"{}\", using info", wanted);
    lvl = spdlog::level::info;
  }
  spdlog::set_level(lvl);
  spdlog::flush_on(spdlog::level::info);
}

}  // namespace mcpgw
