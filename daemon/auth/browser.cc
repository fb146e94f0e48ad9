#include "daemon/auth/browser.h"

#include <unordered_set>
#include <vector>

namespace mcpgw::auth {

std::optional<BrowserChoice> ChooseBrowser(
    const std::function<std::optional<std::string>(std::string_view)>& get_env, bool macos) {
  auto set = [&](std::string_view name) -> std::optional<std::string> {
    std::optional<std::string> v = get_env(name);
    if (v && !v->empty()) return v;
    return std::nullopt;
  };
  if (std::optional<std::string> v = set("MCPGW_BROWSER"))
    return BrowserChoice{*v, "MCPGW_BROWSER"};
  if (std::optional<std::string> v = set("BROWSER")) {
    std::string first = v->substr(0, v->find(':'));
    if (!first.empty()) return BrowserChoice{first, "BROWSER"};
  }
  if (macos) return BrowserChoice{"open", "open"};
  if (set("DISPLAY") || set("WAYLAND_DISPLAY")) return BrowserChoice{"xdg-open", "xdg-open"};
  return std::nullopt;
}

std::string LoginRequiredReason(std::string_view server_name) {
  return "authorization required: run \"mcpgw login " + std::string(server_name) + "\"";
}

struct ProgramLauncher::Impl {
  struct Run {
    uv_process_t process;
    Done done;
    Impl* owner;
  };
  uv_loop_t* loop;
  std::unordered_set<Run*> runs;

  static void OnExit(uv_process_t* p, int64_t status, int signal) {
    auto* run = static_cast<Run*>(p->data);
    Done done = std::move(run->done);
    if (run->owner) run->owner->runs.erase(run);
    uv_close(reinterpret_cast<uv_handle_t*>(p),
             [](uv_handle_t* h) { delete static_cast<Run*>(h->data); });
    if (!done) return;
    if (status == 0 && signal == 0) {
      done(base::Status());
    } else if (signal != 0) {
      done(base::IoError("the browser program was killed by signal " + std::to_string(signal)));
    } else {
      done(base::IoError("the browser program exited with status " + std::to_string(status)));
    }
  }
};

ProgramLauncher::ProgramLauncher(uv_loop_t* loop) : impl_(std::make_unique<Impl>()) {
  impl_->loop = loop;
}

ProgramLauncher::~ProgramLauncher() {
  for (Impl::Run* run : impl_->runs) {
    run->owner = nullptr;
    run->done = nullptr;
  }
}

void ProgramLauncher::Launch(const BrowserChoice& browser, const std::string& url, Done done) {
  auto* run = new Impl::Run{};
  run->done = std::move(done);
  run->owner = impl_.get();
  run->process.data = run;
  std::vector<char*> args = {const_cast<char*>(browser.program.c_str()),
                             const_cast<char*>(url.c_str()), nullptr};
  uv_stdio_container_t stdio[3];
  for (auto& s : stdio) s.flags = UV_IGNORE;
  uv_process_options_t options = {};
  options.exit_cb = &Impl::OnExit;
  options.file = browser.program.c_str();
  options.args = args.data();
  options.stdio_count = 3;
  options.stdio = stdio;
  const int rc = uv_spawn(impl_->loop, &run->process, &options);
  if (rc != 0) {
    Done cb = std::move(run->done);
    uv_close(reinterpret_cast<uv_handle_t*>(&run->process),
             [](uv_handle_t* h) { delete static_cast<Impl::Run*>(h->data); });
    if (cb) {
      cb(base::IoError("cannot run " + browser.source + " (" + browser.program +
                       "): " + uv_strerror(rc)));
    }
    return;
  }
  impl_->runs.insert(run);
}

}  // namespace mcpgw::auth
