/* libmcpgw: the C interface to a running mcpgwd over its Unix socket.
 *
 * A client handle owns one connection to the daemon (opened on first use and
 * reopened after the daemon restarts). It offers two ways to run requests:
 *
 * - The classic functions (mcpgw_get_dynamic_tools, ...) block until the
 *   answer. They are thread-safe: many threads may share one handle and run
 *   calls at once; they are multiplexed on the connection. Every call can be
 *   cancelled from another thread with a cancel token.
 * - The pollable interface (mcpgw_start_*, mcpgw_process, below) never
 *   blocks, for hosts built around an event loop: the host watches one file
 *   descriptor, and requests complete through callbacks.
 *
 * Both run on the same machinery and may be mixed on one handle. The library
 * starts no thread. Strings returned through `char** out` belong to the
 * caller, who frees them with mcpgw_free(). */
#ifndef MCPGW_H
#define MCPGW_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define MCPGW_API __attribute__((visibility("default")))
#else
#define MCPGW_API
#endif

/* Outcome of a call. The values equal the exit codes of the `mcpgw` CLI. */
typedef enum mcpgw_status {
  MCPGW_OK = 0,
  MCPGW_BACKEND = 1,         /* the server answered with an error */
  MCPGW_INVALID_REQUEST = 3, /* unknown namespace or tool, bad arguments */
  MCPGW_NOT_READY = 4,       /* the server is loading or in error */
  MCPGW_TRANSPORT = 5,       /* network, HTTP, protocol, size, deadline */
  MCPGW_DENIED = 6,          /* the gateway's policy refused the call */
  MCPGW_UNAVAILABLE = 7,     /* the daemon cannot be reached */
  MCPGW_CANCELLED = 8        /* cancelled (token, mcpgw_cancel_request, close) */
} mcpgw_status;

typedef struct mcpgw_client mcpgw_client;
typedef struct mcpgw_cancel mcpgw_cancel;

/* Creates a handle for the daemon at `socket_path`; NULL means the default
 * ($MCPGW_SOCKET, else $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock; proto/PROTOCOL.md
 * has the whole rule). Does not connect yet. Returns NULL only when out of
 * memory. */
MCPGW_API mcpgw_client* mcpgw_open(const char* socket_path);
/* Closes the connection; classic calls still running in other threads end
 * with MCPGW_CANCELLED, and the callbacks of pending pollable requests run,
 * on this thread, with MCPGW_CANCELLED. The handle must not be used
 * afterwards. Not to be called from a callback, nor while another thread is
 * inside mcpgw_process(). */
MCPGW_API void mcpgw_close(mcpgw_client* client);
/* Upper bound for each request started afterwards on this handle, in
 * milliseconds (0: none, the default; the daemon applies its own deadlines).
 * A request past it ends as MCPGW_TRANSPORT and is cancelled at the daemon. */
MCPGW_API void mcpgw_set_timeout_ms(mcpgw_client* client, long timeout_ms);
/* Connects now if not connected (requests connect on demand anyway), so a
 * host can tell its user early that the daemon is unreachable. Returns
 * MCPGW_OK, or MCPGW_UNAVAILABLE with `*error` (may be NULL) saying which
 * socket was tried and how to start the daemon. Never blocks. */
MCPGW_API mcpgw_status mcpgw_connect(mcpgw_client* client, char** error);

/* ---- Classic (blocking) functions ----------------------------------------- */

/* Cancel tokens: trigger from any thread to end the classic calls that use
 * it. A triggered token ends at once calls given it later. */
MCPGW_API mcpgw_cancel* mcpgw_cancel_new(void);
MCPGW_API void mcpgw_cancel_trigger(mcpgw_cancel* cancel);
MCPGW_API void mcpgw_cancel_free(mcpgw_cancel* cancel);

/* get_dynamic_tools. `ns` and `tool` may be NULL. On MCPGW_OK `*out` is the
 * JSON text of BEHAVIOR.md §4; otherwise `*out` is an error message a model can read.
 * `cancel` may be NULL. */
MCPGW_API mcpgw_status mcpgw_get_dynamic_tools(mcpgw_client* client, const char* ns,
                                               const char* tool, mcpgw_cancel* cancel, char** out);
/* get_dynamic_tools with a query: the tools of the ready servers (of server
 * `ns` alone when it is not NULL) that best match `query`, what the caller
 * wants to do in its own words, best first. At most `limit` tools; 0 means
 * the daemon's default (10). On MCPGW_OK `*out` is the JSON text of
 * BEHAVIOR.md §4, each tool with its namespace, description and input schema;
 * otherwise an error message. A NULL `query` is MCPGW_INVALID_REQUEST and
 * nothing is sent. Any other `query` and `limit` are sent as they are: the
 * daemon refuses an empty query and a limit outside 1 to 50 as
 * MCPGW_INVALID_REQUEST. `ns` and `cancel` may be NULL. */
MCPGW_API mcpgw_status mcpgw_find_tools(mcpgw_client* client, const char* ns, const char* query,
                                        int limit, mcpgw_cancel* cancel, char** out);
/* call_dynamic_tool. `arguments_json` is a JSON object's text or NULL ({}); it
 * reaches the daemon byte for byte (numbers keep their digits; a raw newline,
 * which JSON only allows as whitespace, travels as a space).
 * On MCPGW_OK `*out` is the result text; otherwise an error message. */
MCPGW_API mcpgw_status mcpgw_call_dynamic_tool(mcpgw_client* client, const char* ns,
                                               const char* tool, const char* arguments_json,
                                               mcpgw_cancel* cancel, char** out);
/* call_dynamic_tool with a bound on the result's text (BEHAVIOR.md §11): a
 * text longer than `max_text_bytes` bytes comes back cut at a character
 * boundary, followed by a blank line and one line
 *   [result truncated: N bytes in total; the full text is in PATH]
 * naming a private file that holds the whole text (or saying why none could
 * be kept); the cut answer is never longer than the bound unless the bound is
 * shorter than that line. A tool's own error text is held to it as well.
 * `max_text_bytes` is a number of bytes (0: no bound), MCPGW_MAX_TEXT_DEFAULT
 * (the daemon's results.max_text_bytes, no bound unless set: what
 * mcpgw_call_dynamic_tool() uses) or MCPGW_MAX_TEXT_STDIO (its
 * results.stdio_max_text_bytes, 100000 unless set: for hosts that hand the
 * text to a model); any other negative value is MCPGW_INVALID_REQUEST. */
#define MCPGW_MAX_TEXT_DEFAULT (-1LL)
#define MCPGW_MAX_TEXT_STDIO (-2LL)
MCPGW_API mcpgw_status mcpgw_call_dynamic_tool_bounded(mcpgw_client* client, const char* ns,
                                                       const char* tool, const char* arguments_json,
                                                       long long max_text_bytes,
                                                       mcpgw_cancel* cancel, char** out);
/* The daemon's status as JSON (see proto/PROTOCOL.md). */
MCPGW_API mcpgw_status mcpgw_status_json(mcpgw_client* client, mcpgw_cancel* cancel, char** out);

/* ---- Pollable interface ------------------------------------------------------
 *
 * For hosts with their own event loop (poll/epoll, libuv, Python asyncio,
 * tokio, Go through cgo). Nothing here blocks:
 *
 * 1. mcpgw_fd() gives one descriptor and the events to watch it for. It is
 *    the same descriptor for the handle's life, across daemon restarts, so it
 *    can be registered once with an event loop. Do not read it or close it.
 * 2. Start requests with mcpgw_start_*(); each returns a request id (never 0).
 * 3. When the descriptor is ready, or mcpgw_timeout() milliseconds have
 *    passed, call mcpgw_process(): it writes and reads what the socket allows,
 *    ends requests past their deadline, and runs the callbacks of finished
 *    requests, on the calling thread, before it returns.
 * 4. Ask mcpgw_timeout() again after every call into the library.
 *
 * Every started request's callback runs exactly once: from mcpgw_process(),
 * or from mcpgw_close() with MCPGW_CANCELLED. Even an immediate failure (no
 * daemon) is reported that way, never from inside mcpgw_start_*(). The
 * callback may start and cancel requests, but must not close the handle.
 * These functions are thread-safe, but keep mcpgw_process() on one thread:
 * that is where callbacks run. Requests still reconnect after a daemon
 * restart: one that the daemon never saw goes out again on a new connection;
 * one it may have seen ends as MCPGW_UNAVAILABLE (outcome unknown).
 *
 * A plain poll() loop that lists the servers, then reads the status:
 *
 * EXAMPLE-BEGIN mcpgw_poll_example.c
 *   #include <poll.h>
 *   #include <stdio.h>
 *   #include "mcpgw.h"
 *
 *   static int pending = 0;
 *
 *   static void on_done(void* user_data, mcpgw_request request,
 *                       mcpgw_status status, const char* text, size_t len) {
 *     (void)request;
 *     printf("%s %s: %.*s\n", (const char*)user_data,
 *            mcpgw_status_name(status), (int)len, text);
 *     --pending;
 *   }
 *
 *   int main(int argc, char** argv) {
 *     mcpgw_client* client = mcpgw_open(argc > 1 ? argv[1] : NULL);
 *     if (client == NULL) return 1;
 *     int events = 0;
 *     int fd = mcpgw_fd(client, &events);
 *     if (fd < 0) return 1;
 *     if (mcpgw_start_get_dynamic_tools(client, NULL, NULL, on_done, "tools")) ++pending;
 *     if (mcpgw_start_status(client, on_done, "status")) ++pending;
 *     while (pending > 0) {
 *       struct pollfd p = {fd, 0, 0};
 *       if (events & MCPGW_WANT_READ) p.events |= POLLIN;
 *       if (events & MCPGW_WANT_WRITE) p.events |= POLLOUT;
 *       long timeout = mcpgw_timeout(client);
 *       poll(&p, 1, timeout < 0 ? -1 : (int)timeout);
 *       mcpgw_process(client);
 *       mcpgw_fd(client, &events);
 *     }
 *     mcpgw_close(client);
 *     return 0;
 *   }
 * EXAMPLE-END
 */

/* A request of the pollable interface; 0 is never one. */
typedef unsigned long long mcpgw_request;

/* Called once per request with its outcome: `text` (NUL-terminated, `len`
 * bytes) is the answer on MCPGW_OK, otherwise an error message. It is valid
 * only during the call. */
typedef void (*mcpgw_done)(void* user_data, mcpgw_request request, mcpgw_status status,
                           const char* text, size_t len);

/* Events for mcpgw_fd(). */
#define MCPGW_WANT_READ 1
#define MCPGW_WANT_WRITE 2

/* The descriptor to watch, and in `*events` (may be NULL) what for: today
 * always MCPGW_WANT_READ (the descriptor turns readable when the socket
 * inside it can be written to and output waits). Returns -1 when it cannot
 * be created (out of descriptors; errno says why). */
MCPGW_API int mcpgw_fd(mcpgw_client* client, int* events);
/* Milliseconds until mcpgw_process() must run even if the descriptor stays
 * quiet (a deadline, or finished requests waiting: 0); -1 when none. */
MCPGW_API long mcpgw_timeout(mcpgw_client* client);
/* Does whatever is ready and runs the callbacks of finished requests.
 * Returns how many pollable requests are still pending. */
MCPGW_API int mcpgw_process(mcpgw_client* client);

/* Start a request; the arguments mean what they mean for the classic
 * functions. Return the request's id, or 0 when the handle is closing or
 * NULL (then no callback runs). Bad arguments to call_dynamic_tool, and a
 * NULL query to find_tools, are reported through the callback as
 * MCPGW_INVALID_REQUEST, like every other failure. */
MCPGW_API mcpgw_request mcpgw_start_get_dynamic_tools(mcpgw_client* client, const char* ns,
                                                      const char* tool, mcpgw_done done,
                                                      void* user_data);
MCPGW_API mcpgw_request mcpgw_start_find_tools(mcpgw_client* client, const char* ns,
                                               const char* query, int limit, mcpgw_done done,
                                               void* user_data);
MCPGW_API mcpgw_request mcpgw_start_call_dynamic_tool(mcpgw_client* client, const char* ns,
                                                      const char* tool, const char* arguments_json,
                                                      mcpgw_done done, void* user_data);
MCPGW_API mcpgw_request mcpgw_start_call_dynamic_tool_bounded(mcpgw_client* client, const char* ns,
                                                              const char* tool,
                                                              const char* arguments_json,
                                                              long long max_text_bytes,
                                                              mcpgw_done done, void* user_data);
MCPGW_API mcpgw_request mcpgw_start_status(mcpgw_client* client, mcpgw_done done, void* user_data);
/* Cancels a pending request: the daemon drops it (a frame half-written is
 * finished first, so other requests on the connection are not disturbed) and
 * its callback runs with MCPGW_CANCELLED from the next mcpgw_process().
 * Returns 1 if it was pending, 0 if it had already finished (its callback
 * runs or ran with the real outcome) or is unknown. */
MCPGW_API int mcpgw_cancel_request(mcpgw_client* client, mcpgw_request request);

/* ---- Helpers -------------------------------------------------------------- */

/* Frees a string returned by this library. NULL is fine. */
MCPGW_API void mcpgw_free(char* s);
/* "ok", "backend", "invalid_request", ... for a status. */
MCPGW_API const char* mcpgw_status_name(mcpgw_status status);
/* The library's version, e.g. "0.1.0". */
MCPGW_API const char* mcpgw_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MCPGW_H */
