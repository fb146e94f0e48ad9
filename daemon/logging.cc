#include "daemon/logging.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include <spdlog/details/null_mutex.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

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

}  // namespace

void SetUpLogging(const std::string& level) {
  auto logger = std::make_shared<spdlog::logger>(
      "mcpgwd", std::make_shared<spdlog::sinks::stderr_sink_mt>());
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
