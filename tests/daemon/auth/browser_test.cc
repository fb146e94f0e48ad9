// Which program opens the authorization URL (MCPGW_BROWSER, then $BROWSER,
// then the desktop's opener, else a login is required), and what the launcher
// reports when that program works, fails or cannot run.
#include <map>

#include <uv.h>
#include <catch2/catch.hpp>

#include "daemon/auth/browser.h"

namespace mcpgw::auth {
namespace {

std::optional<BrowserChoice> Choose(std::map<std::string, std::string> env, bool macos = false) {
  return ChooseBrowser(
      [&](std::string_view name) -> std::optional<std::string> {
        auto it = env.find(std::string(name));
        if (it == env.end()) return std::nullopt;
        return it->second;
      },
      macos);
}

TEST_CASE("MCPGW_BROWSER comes first, then BROWSER, then the desktop's opener", "[auth][browser]") {
  auto all = Choose({{"MCPGW_BROWSER", "/opt/b"}, {"BROWSER", "firefox"}, {"DISPLAY", ":0"}});
  REQUIRE(all);
  CHECK(all->program == "/opt/b");
  CHECK(all->source == "MCPGW_BROWSER");

  auto browser = Choose({{"MCPGW_BROWSER", ""}, {"BROWSER", "w3m:lynx"}, {"DISPLAY", ":0"}});
  REQUIRE(browser);
  CHECK(browser->program == "w3m");  // the first of its entries
  CHECK(browser->source == "BROWSER");

  auto desktop = Choose({{"WAYLAND_DISPLAY", "wayland-0"}});
  REQUIRE(desktop);
  CHECK(desktop->program == "xdg-open");

  auto mac = Choose({}, /*macos=*/true);
  REQUIRE(mac);
  CHECK(mac->program == "open");
}

TEST_CASE("without a browser or a desktop a login is required", "[auth][browser]") {
  CHECK_FALSE(Choose({}));
  CHECK_FALSE(Choose({{"BROWSER", ":"}, {"DISPLAY", ""}}));
  CHECK(LoginRequiredReason("notion") == "authorization required: run \"mcpgw login notion\"");
}

TEST_CASE("the launcher reports the program's outcome, never the URL", "[auth][browser]") {
  uv_loop_t loop;
  uv_loop_init(&loop);
  const std::string url = "http://as.example/authorize?state=SECRET_STATE";
  struct Case {
    BrowserChoice browser;
    bool ok;
    std::string error;
  };
  std::vector<Case> cases = {
      {{"true", "MCPGW_BROWSER"}, true, ""},
      {{"false", "MCPGW_BROWSER"}, false, "the browser program exited with status 1"},
      {{"/nonexistent/browser", "BROWSER"},
       false,
       "cannot run BROWSER (/nonexistent/browser): no such file or directory"},
  };
  for (const Case& c : cases) {
    std::optional<std::pair<bool, std::string>> got;
    {
      ProgramLauncher launcher(&loop);
      launcher.Launch(c.browser, url, [&](const base::Status& launched) {
        got = {launched.ok(), launched.message()};
      });
      for (int i = 0; i < 500 && !got; ++i) uv_run(&loop, UV_RUN_ONCE);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    INFO(c.browser.program);
    REQUIRE(got);
    CHECK(got->first == c.ok);
    CHECK(got->second == c.error);
    CHECK(got->second.find("SECRET_STATE") == std::string::npos);
  }
  CHECK(uv_loop_close(&loop) == 0);
}

}  // namespace
}  // namespace mcpgw::auth
