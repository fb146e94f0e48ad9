// The seam between an MCP conversation (conversation.h) and the transport it
// runs over: `Wire` is what the conversation asks of a transport, and
// `WireListener` is what a transport tells the conversation. Both sides are
// sans-I/O and driven by the same events; neither reads a clock.
//
// The conversation speaks JSON-RPC: it builds every message's text, numbers
// its requests, keeps their deadlines, and decides what a lost request means
// for the call or the listing it belongs to. It knows nothing of HTTP status
// codes, headers, event streams or session ids. The transport moves messages:
// it sends requests and notifications, delivers each request's answer (or
// judges why none came), resumes what it can resume by itself, keeps the
// stream of what the server sends unasked open while the conversation serves,
// and opens and ends whatever session it needs. It knows nothing of tools,
// tasks or listings. docs/ARCHITECTURE.md ("The conversation and its wire")
// describes the interface and the order of events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/document.h>

#include "daemon/mcp/jsonrpc.h"
#include "daemon/mcp/types.h"

namespace mcpgw::mcp {

// What a request is to the transport: what may become of it when no answer
// comes.
enum class Role : uint8_t {
  kProbe,  // server/discover: whatever the server makes of it (an error, a
           // refusal, silence) is its answer, delivered through OnAnswer
  kOpen,   // initialize: opens the session the later requests belong to
  kRead,   // may go out once more when the server provably never took it (a
           // page of a listing, a read of a task)
  kCall,   // tools/call: runs at most once; a transport never sends it again
           // by itself, and its failure says when it may have run
};

// The stateless era's facts about a request, which a transport may repeat
// outside its body (Streamable HTTP sends them as protocol headers). A
// request of the 2025 era has none. The views are valid during Send only.
struct Routing {
  std::string_view version;
  std::string_view method;
  std::optional<std::string_view> name;  // tools/call: the tool
  // The arguments a tool's schema marks with x-mcp-header: the annotation's
  // name and the value as text (ParamValues, param_headers.h).
  std::vector<std::pair<std::string, std::string>> params;
};

struct OutRequest {
  RpcId id = 0;
  Role role = Role::kRead;
  bool resent = false;  // this is its one more time already
  std::string body;     // the whole JSON-RPC request
  std::optional<Routing> routing;
};

// An answer to a request, or, for a probe, whatever stood in for one.
struct Answer {
  const rapidjson::Value* message = nullptr;  // null: nothing came (a probe only)
  const Message* classified = nullptr;        // `message` classified, when it is a response
  bool refused = false;  // it came as the transport's refusal, not as a success
  std::string_view how;  // what came, for the log ("HTTP 404")
  // Set for an answer to kOpen that the transport cannot use to open its
  // session, for this reason; the conversation fails the attempt with it
  // once the answer is otherwise valid.
  std::string_view unusable;
};

// What became of a request that ended without an answer, as the transport
// judged it (BEHAVIOR.md §5: a call runs at most once). The transport has
// forgotten the request already.
struct Loss {
  enum class Remedy {
    kFail,      // it fails with `reason`
    kResend,    // the server never took it: once more, in a new session
    kReprobe,   // refused as if the server's era changed: once more, after
                // probing the era again
    kHold,      // refused for lack of credentials: hold it until they come
    kProbeEra,  // kOpen refused the way a 2026-07-28 server refuses
                // initialize: probe the era now (else it fails)
  };
  Remedy remedy = Remedy::kFail;
  std::string reason;
  bool backend = false;    // kFail of a call: the server's own refusal, not transport
  bool transient = false;  // kFail: passing trouble, not an answer; a read may be asked again
  // Non-empty: the session the request was sent in is gone, for this reason;
  // the conversation opens a new one.
  std::string session_expired;
  // kReprobe: the refusal came from the current session, so the era is in
  // question (a request of a replaced session just waits for the new one).
  bool era_doubted = false;
};

// Which session a message the server sent unasked came from: replies go back
// to it, and only the current one speaks for the server's tools.
struct From {
  uint64_t session = 0;
  bool current = true;
};

// What the conversation wants to hear from the server unasked.
enum class Listening {
  kSession,    // whatever the session sends (the 2025 era)
  kSubscribe,  // the answer stream of a subscription request (the 2026 era),
               // asked for through WireListener::Subscription
};

class Wire {
 public:
  virtual ~Wire() = default;

  // --- the session ---
  // A new attempt begins: what belonged to the current session (its stream,
  // its handshake) ends; requests in flight run on.
  virtual void Begin(TimePoint now) = 0;
  // The current session is given up. `expired`: the server forgot it already
  // (for that reason, for the log); else it is ended at the server, when it
  // made one.
  virtual void Abandon(std::string_view expired, TimePoint now) = 0;
  // The answer to kOpen was valid: the session it opened, at `version`, is
  // the current one.
  virtual void Opened(std::string_view version) = 0;
  // Sends the notification that ends the handshake; OnConfirmed or
  // OnAttemptFailed follows, by `deadline` at the latest (then with
  // `timeout_reason`).
  virtual void Confirm(std::string body, TimePoint deadline, std::string timeout_reason,
                       TimePoint now) = 0;
  // Shut down: everything is dropped but what still needs saying (Tell) and
  // the end of the session, which may go on under the driver's grace time.
  virtual void Close(TimePoint now) = 0;

  // --- requests ---
  // Exactly one OnAnswer or OnLost follows, unless the request is dropped.
  virtual void Send(OutRequest request, TimePoint now) = 0;
  // No further events for request `id`.
  virtual void Drop(RpcId id) = 0;
  // The conversation no longer wants request `id`: it is dropped and the
  // server told with `notice` when it may still hold the request and nothing
  // else tells it (closing a stream is the cancellation on the 2026-07-28
  // HTTP wire). With `keep_reading`, an answer being read now is read on
  // (it may name a task to cancel); returns whether it is.
  virtual bool Cancel(RpcId id, std::string notice, bool keep_reading, TimePoint now) = 0;
  // A reply to a request the server sent, for the session it came from; a
  // flooding server's replies may be dropped (and the log says so).
  virtual void Reply(std::string body, From to, TimePoint now) = 0;
  // A request sent like a notification (tasks/cancel): its answer is not
  // read; shutting down, the session ends only after it went.
  virtual void Tell(std::string body, TimePoint now) = 0;

  // --- what the server sends unasked ---
  // The conversation serves: hear what the server sends unasked, now and
  // whenever the stream is due again, until StopListening, Begin, Abandon or
  // Close.
  virtual void Listen(Listening how, TimePoint now) = 0;
  virtual void StopListening() = 0;

  // --- credentials ---
  // The last request held (Loss::kHold) begins a wait for credentials: the
  // driver is asked for them, with what the refusal said.
  virtual void AskCredentials() = 0;

  // --- time, and the end of every event ---
  virtual void OnTimer(TimePoint now) = 0;
  virtual std::optional<TimePoint> NextWakeup() const = 0;
  // Sends what waited for room (notifications, replies).
  virtual void AfterEvent(TimePoint now) = 0;
};

class WireListener {
 public:
  // The answer to request `id`, from wherever it came (its own stream,
  // another one, the server's one output).
  virtual void OnAnswer(RpcId id, const Answer& answer, TimePoint now) = 0;
  virtual void OnLost(RpcId id, const Loss& loss, TimePoint now) = 0;
  // Bytes of request `id`'s answer arrived (counted for the call log).
  virtual void OnReceived(RpcId id, size_t bytes) = 0;
  // A request or notification the server sent.
  virtual void OnServerMessage(const Message& message, From from, TimePoint now) = 0;
  // The handshake ended (Confirm), or failed for `reason`.
  virtual void OnConfirmed(TimePoint now) = 0;
  virtual void OnAttemptFailed(const std::string& reason, TimePoint now) = 0;
  // The server forgot the current session (seen on its stream).
  virtual void OnSessionExpired(const std::string& why, TimePoint now) = 0;
  // The server itself ended (a local server's process exited): it is in
  // error for `reason` until a new session serves, and the next attempt
  // waits out the back-off. Requests it held are reported lost after this.
  virtual void OnTransportEnded(const std::string& reason, TimePoint now) = 0;

  // --- what a transport asks while it judges ---
  // Whether a request refused for lack of credentials can wait for them.
  virtual bool CanHold() const = 0;
  // Whether a refused kOpen may mean the server speaks 2026-07-28 now.
  virtual bool MayProbe() const = 0;
  // The subscription request to send now (Listening::kSubscribe), a new one
  // each time the stream is opened.
  virtual OutRequest Subscription() = 0;

 protected:
  ~WireListener() = default;
};

}  // namespace mcpgw::mcp
