// Gateway: the OAuth requests of the local protocol (login, login_wait,
// logout; proto/PROTOCOL.md) and each server's "oauth" status member, both
// answered by the AuthManager on the main loop.
#include <cstdio>

#include <spdlog/spdlog.h>

#include "base/bounded_json.h"
#include "base/json_text.h"
#include "daemon/auth/manager.h"
#include "daemon/gateway/gateway.h"
#include "daemon/gateway/json_write.h"

namespace mcpgw {

// Forwards the AuthManager's words to the gateway, which finds the server.
class Gateway::AuthLink : public auth::SessionLink {
 public:
  explicit AuthLink(Gateway* gateway) : gateway_(gateway) {}
  void SetAuthorization(uint64_t server, const Secret& value) override {
    gateway_->SetSessionAuthorization(server, value);
  }
  void Authorized(uint64_t server) override { gateway_->SessionAuthorized(server); }
  void AuthorizationFailed(uint64_t server, const std::string& reason) override {
    gateway_->SessionAuthorizationFailed(server, reason);
  }
  void LearnSecret(const Secret& value) override {
    if (gateway_->secret_sink_) gateway_->secret_sink_(value);
  }

 private:
  Gateway* gateway_;
};

auth::SessionLink* Gateway::auth_link() {
  if (!auth_link_) auth_link_ = std::make_shared<AuthLink>(this);
  return auth_link_.get();
}

void Gateway::HandleAuthRequest(Ticket ticket, std::string_view method,
                                const rapidjson::Value& params) {
  if (!auth_) {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest, "this mcpgwd does not do OAuth");
    return;
  }
  const std::string ns = StringParam(params, "namespace").value_or("");
  if (ns.empty()) {
    ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
               std::string(method) + " needs a string \"namespace\"");
    return;
  }
  if (method == proto::kLogin) {
    auth_->Login(ns, [this, ticket](base::Result<auth::LoginStarted> started) {
      if (!started.ok()) return ReplyError(ticket, started.status());
      std::string out = "{\"url\":";
      base::AppendJsonString(&out, started->url);
      out += ",\"login\":" + std::to_string(started->login) + "}";
      replies_->ReplyJson(ticket, out);
    });
  } else if (method == proto::kLoginWait) {
    auto it = params.FindMember("login");
    if (it == params.MemberEnd() || !it->value.IsUint64()) {
      return ReplyError(ticket, proto::ErrorKind::kInvalidRequest,
                        "login_wait needs the number \"login\" that login answered");
    }
    auth_->WaitLogin(ns, it->value.GetUint64(), [this, ticket](const base::Status& ended) {
      if (!ended.ok()) return ReplyError(ticket, ended);
      replies_->ReplyJson(ticket, "{}");
    });
  } else {
    auth_->Logout(ns, [this, ticket](const base::Status& done) {
      if (!done.ok()) return ReplyError(ticket, done);
      replies_->ReplyJson(ticket, "{}");
    });
  }
}

std::string Gateway::AuthStatusJson(uint64_t auth_id) const {
  if (!auth_ || auth_id == 0) return "null";
  const auth::OAuthStatus st = auth_->Status(auth_id);
  if (!st.used) return "null";
  auto str = [&](std::string& out, const char* key, const std::string& value, bool first = false) {
    if (!first) out += ',';
    out += '"';
    out += key;
    out += "\":";
    base::AppendJsonString(&out, Scrubbed(value));
  };
  std::string out = "{";
  str(out, "state", st.state, true);
  str(out, "issuer", st.issuer);
  str(out, "client", st.client);
  str(out, "subject", st.subject);
  str(out, "scopes", st.scope);
  out += ",\"expires_unix\":";
  out += st.expires_unix ? std::to_string(*st.expires_unix) : "null";
  out += ",\"refreshable\":";
  out += st.refreshable ? "true" : "false";
  str(out, "error", st.error);
  out += ",\"attempts\":" + std::to_string(st.attempts);
  out += '}';
  return out;
}

}  // namespace mcpgw
