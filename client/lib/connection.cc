// libmcpgw's socket plumbing: connecting to the daemon (proto/daemon_socket.h
// checks who serves the socket), and turning reply frames into outcomes. Pure
// helpers for the Core (client_impl.h); no state of their own.
#include <unistd.h>

#include <charconv>

#include "client/lib/client_impl.h"
#include "client/status_of.h"
#include "proto/daemon_socket.h"
#include "proto/messages.h"

namespace mcpgw::client {

Connection::~Connection() {
  if (fd >= 0) close(fd);
}

std::string LostConnectionMessage(const std::string& path) {
  return "lost the connection to mcpgwd at " + path +
         " (it stopped or restarted); the call's outcome is unknown, retry it";
}

base::Result<int> ConnectSocket(const std::string& path) {
  return proto::ConnectToDaemon(path, /*nonblocking=*/true);
}

Outcome OutcomeOf(const base::Status& error) { return {StatusOf(error.kind()), error.message()}; }

bool DecodeReply(std::string_view frame, uint64_t* id, Outcome* outcome, bool* has_text) {
  proto::Decoded d = proto::DecodeMessage(frame);
  if (!d.ok || d.message.type != proto::MessageType::kResponse) return false;
  const proto::Message& m = d.message;
  const char* first = m.id.data();
  const char* last = first + m.id.size();
  if (std::from_chars(first, last, *id).ptr != last) return false;  // not one of our ids
  *has_text = false;
  if (m.is_error) {
    outcome->status = StatusOf(m.error_kind);
    outcome->text = m.error_message;
    return true;
  }
  outcome->status = MCPGW_OK;
  const rapidjson::Value& result = *m.result;
  if (result.IsObject()) {
    auto text = result.FindMember("text");
    if (text != result.MemberEnd() && text->value.IsString()) {
      outcome->text.assign(text->value.GetString(), text->value.GetStringLength());
      *has_text = true;
      return true;
    }
  }
  outcome->text = proto::CompactJson(result);
  return true;
}

}  // namespace mcpgw::client
