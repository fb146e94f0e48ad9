// AuthFlow: one authorization of one MCP server, as a sans-I/O state machine
// (BEHAVIOR.md §9). From the server's challenge it discovers the protected resource
// metadata and the authorization server, settles the client identity
// (configured, metadata document, stored or newly registered), asks for the
// user's consent through an authorization URL with PKCE S256, `state` and the
// RFC 8707 resource, validates the redirect, and exchanges the code for
// tokens. It owns no socket, timer or file: its driver (AuthManager) runs the
// HTTP requests it queues, delivers their answers and the callback, fires its
// timer, and reads and writes the store. Every secret it creates or receives
// is announced (LearnSecret) before it can appear anywhere.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/clock.h"
#include "config/config.h"
#include "daemon/auth/challenge.h"
#include "daemon/auth/metadata.h"
#include "daemon/auth/registration.h"
#include "daemon/auth/store.h"
#include "daemon/auth/url.h"

namespace mcpgw::auth {

using mcpgw::Duration;
using mcpgw::TimePoint;

struct FlowLimits {
  Duration fetch_timeout = std::chrono::seconds(30);   // each discovery/token request
  Duration consent_timeout = std::chrono::minutes(5);  // the user's answer in the browser
};

// What the flow starts from.
struct FlowStart {
  config::RemoteServer server;  // url (a secret) and the entry's oauth object
  BearerChallenge challenge;    // of the 401/403 that asked for it (may be absent)
  std::string held_scope;       // scopes of the token in use: a step-up adds to them
  // Only find out whether the server offers OAuth (no browser could ask for
  // consent): the flow ends with Discovered once the authorization server
  // is known, before registering or listening.
  bool discover_only = false;
};

// An HTTP answer as the driver saw it: the exchange completed (any status).
// An exchange that did not is an error, short and secret-free, in its place
// (base::Result<FetchResult>).
struct FetchResult {
  int status = 0;
  std::string content_type;
  std::string body;  // bounded by the driver (kMaxDocumentBytes)
};

// --- actions ---
struct Fetch {
  uint64_t id;
  HttpCall call;
};
// The authorization URL is ready: open it (or hand it to `mcpgw login`) and
// deliver the callback whose `state` matches.
struct AwaitConsent {
  std::string url;
  std::string state;
};
struct LearnSecret {
  Secret value;
};
struct SaveClient {
  ClientIdentity client;
};
struct Finished {
  StoredGrant grant;
};
struct Failed {
  std::string reason;  // secret-free; untrusted text cleaned
};
// The server offers no OAuth at all: no protected resource metadata, no
// authorization server metadata at its origin, and nothing else that says
// it wants OAuth (a Bearer challenge, a configured client) or the default
// endpoints of a 2025-03-26 server are not there. Its 401 is a refusal of
// whatever credentials its entry sends, not a request for a login.
struct NoOAuth {
  std::string reason;  // secret-free: what was looked for
};
// discover_only: the server does offer OAuth.
struct Discovered {};
using FlowAction = std::variant<Fetch, AwaitConsent, LearnSecret, SaveClient, Finished, Failed,
                                NoOAuth, Discovered>;

class AuthFlow {
 public:
  // Returns a registration stored for an issuer, if any.
  using ClientLookup = std::function<std::optional<ClientIdentity>(const std::string& issuer)>;
  // Opens the loopback callback listener, on `preferred_port` when it is free
  // (the port a stored registration named; 0: any), and returns its redirect
  // URI (http://127.0.0.1:PORT/callback), or why it cannot.
  using RedirectOpener = std::function<base::Result<std::string>(int preferred_port)>;

  AuthFlow(FlowStart start, ClientLookup lookup_client, RedirectOpener open_redirect,
           FlowLimits limits = {});
  ~AuthFlow();
  AuthFlow(const AuthFlow&) = delete;
  AuthFlow& operator=(const AuthFlow&) = delete;

  void Start(TimePoint now);
  void OnFetched(uint64_t id, const base::Result<FetchResult>& result, TimePoint now,
                 int64_t unix_now);
  // The loopback redirect's query parameters, already matched by `state`.
  void OnCallback(const Params& params, TimePoint now);
  void OnTimer(TimePoint now);

  std::vector<FlowAction> TakeActions();
  std::optional<TimePoint> NextWakeup() const;
  bool done() const;
  // The consent step is reached (the URL was handed out) and not over.
  bool awaiting_consent() const;
  const std::string& scope() const;  // asked for, once known

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The scope to ask for (MCP authorization spec "Scope Selection Strategy"):
// the challenge's, else the resource's scopes_supported, else none; a step-up
// (403 insufficient_scope) asks for the union with what is held; and
// offline_access is added, when something is asked at all, if the
// authorization server lists it.
std::string SelectScope(const BearerChallenge& challenge, const ResourceMetadata* prm,
                        const ServerMetadata& as, std::string_view held_scope);

}  // namespace mcpgw::auth
