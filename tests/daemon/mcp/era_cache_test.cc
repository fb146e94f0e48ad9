#include "daemon/mcp/era_cache.h"

#include <string>

#include <catch2/catch.hpp>

namespace mcpgw::mcp {
namespace {

TEST_CASE("era cache: the origin of a url", "[era_cache]") {
  CHECK(OriginOf("https://Example.COM/mcp?x=1#f") == "https://example.com:443");
  CHECK(OriginOf("HTTP://example.com") == "http://example.com:80");
  CHECK(OriginOf("http://127.0.0.1:8080/a/b") == "http://127.0.0.1:8080");
  CHECK(OriginOf("https://user:secret@host:9443/mcp") == "https://host:9443");
  CHECK(OriginOf("http://[::1]:3000/mcp") == "http://[::1]:3000");
  CHECK(OriginOf("http://[::1]/mcp") == "http://[::1]:80");
  CHECK(OriginOf("no scheme") == "");
  CHECK(OriginOf("http:///path") == "");
}

TEST_CASE("era cache: servers of one origin share what was learned", "[era_cache]") {
  EraCache cache;
  CHECK(cache.Lookup("http://127.0.0.1:8080/mcp") == "");
  cache.Remember("http://127.0.0.1:8080/mcp", "2026-07-28");
  CHECK(cache.Lookup("http://127.0.0.1:8080/other") == "2026-07-28");
  CHECK(cache.Lookup("http://127.0.0.1:8081/mcp") == "");
  cache.Remember("http://127.0.0.1:8080/other", "2025-11-25");  // the server changed
  CHECK(cache.Lookup("http://127.0.0.1:8080/mcp") == "2025-11-25");
  cache.Remember("http://127.0.0.1:8080/mcp", "");
  CHECK(cache.Lookup("http://127.0.0.1:8080/mcp") == "");
  cache.Remember("not a url", "2026-07-28");
  CHECK(cache.size() == 0);
}

TEST_CASE("era cache: bounded", "[era_cache]") {
  EraCache cache;
  for (size_t i = 0; i < EraCache::kMaxOrigins + 10; ++i) {
    cache.Remember("http://h" + std::to_string(i) + ":1/", "2026-07-28");
  }
  CHECK(cache.size() == EraCache::kMaxOrigins);
  CHECK(cache.Lookup("http://h" + std::to_string(EraCache::kMaxOrigins + 9) + ":1/") ==
        "2026-07-28");
}

}  // namespace
}  // namespace mcpgw::mcp
