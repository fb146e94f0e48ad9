/* libmcpgw: the C interface to a running mcpgwd over its Unix socket.
 *
 * A client handle owns one connection to the daemon (opened on first use and
 * reopened after the daemon restarts). Every function is thread-safe: many
 * threads may share one handle and run calls at once; they are multiplexed on
 * the connection. Every call can be cancelled from another thread with a
 * cancel token. Strings returned through `char** out` belong to the caller,
 * who frees them with mcpgw_free(). */
#ifndef MCPGW_H
#define MCPGW_H

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
  MCPGW_CANCELLED = 8        /* cancelled through a cancel token */
} mcpgw_status;

typedef struct mcpgw_client mcpgw_client;
typedef struct mcpgw_cancel mcpgw_cancel;

/* Creates a handle for the daemon at `socket_path`; NULL means the default
 * ($MCPGW_SOCKET, else $XDG_RUNTIME_DIR/mcpgw/mcpgw.sock). Does not connect
 * yet. Returns NULL only when out of memory. */
MCPGW_API mcpgw_client* mcpgw_open(const char* socket_path);
/* Closes the connection; calls still running in other threads end with
 * MCPGW_CANCELLED. The handle must not be used afterwards. */
MCPGW_API void mcpgw_close(mcpgw_client* client);
/* Upper bound for each call on this handle, in milliseconds (0: none, the
 * default; the daemon applies its own deadlines). */
MCPGW_API void mcpgw_set_timeout_ms(mcpgw_client* client, long timeout_ms);

/* Cancel tokens: trigger from any thread to end the calls that use it. */
MCPGW_API mcpgw_cancel* mcpgw_cancel_new(void);
MCPGW_API void mcpgw_cancel_trigger(mcpgw_cancel* cancel);
MCPGW_API void mcpgw_cancel_free(mcpgw_cancel* cancel);

/* get_dynamic_tools. `ns` and `tool` may be NULL. On MCPGW_OK `*out` is the
 * JSON text of SPEC §4; otherwise `*out` is an error message a model can read.
 * `cancel` may be NULL. */
MCPGW_API mcpgw_status mcpgw_get_dynamic_tools(mcpgw_client* client, const char* ns,
                                               const char* tool, mcpgw_cancel* cancel, char** out);
/* call_dynamic_tool. `arguments_json` is a JSON object's text or NULL ({}).
 * On MCPGW_OK `*out` is the result text; otherwise an error message. */
MCPGW_API mcpgw_status mcpgw_call_dynamic_tool(mcpgw_client* client, const char* ns,
                                               const char* tool, const char* arguments_json,
                                               mcpgw_cancel* cancel, char** out);
/* The daemon's status as JSON (see proto/PROTOCOL.md). */
MCPGW_API mcpgw_status mcpgw_status_json(mcpgw_client* client, mcpgw_cancel* cancel, char** out);

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
