#include "daemon/net/tls_reason.h"

#include <cerrno>
#include <cstdio>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

namespace mcpgw::http {
namespace {

constexpr const char* kTrustHint = " (trust its CA with tls.ca_file or SSL_CERT_FILE)";

std::string HostMismatch(std::string_view host) {
  if (host.empty()) return "TLS: the server's certificate is not valid for its host name";
  return "TLS: the server's certificate is not valid for host " + std::string(host);
}

// A reason from OpenSSL's error code during the handshake (or, for alerts a
// TLS 1.3 server sends after it, on the first read). "" when not ours.
std::string SslLibraryReason(unsigned long code) {
  if (ERR_GET_LIB(code) != ERR_LIB_SSL) return "";
  // ERR_reason_error_string needs the texts loaded (libcurl's start-up
  // usually has; unit tests have not). Runs once.
  OPENSSL_init_ssl(OPENSSL_INIT_LOAD_SSL_STRINGS, nullptr);
  switch (ERR_GET_REASON(code)) {
    case SSL_R_CERTIFICATE_VERIFY_FAILED:
      return "TLS: certificate verify failed";
    case SSL_R_WRONG_VERSION_NUMBER:
    case SSL_R_PACKET_LENGTH_TOO_LONG:
    case SSL_R_UNKNOWN_PROTOCOL:
      return "TLS: the server does not speak TLS on this port (is the url http://?)";
    case SSL_R_TLSV1_ALERT_PROTOCOL_VERSION:
    case SSL_R_UNSUPPORTED_PROTOCOL:
    case SSL_R_NO_PROTOCOLS_AVAILABLE:
    case SSL_R_TLSV1_ALERT_INAPPROPRIATE_FALLBACK:
      return "TLS: no TLS version in common with the server";
      // Only TLS 1.1 and older sign with the legacy algorithms OpenSSL 3
      // refuses: the server chose a version this client will not use.
#ifdef SSL_R_LEGACY_SIGALG_DISALLOWED_OR_UNSUPPORTED
    case SSL_R_LEGACY_SIGALG_DISALLOWED_OR_UNSUPPORTED:
#endif
    case SSL_R_VERSION_TOO_LOW:
      return "TLS: the server offers only TLS 1.1 or older, which this client refuses";
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
      return "TLS: the server refused the handshake (no cipher suite in common, or it requires "
             "a client certificate)";
    case SSL_R_TLSV1_ALERT_INSUFFICIENT_SECURITY:
    case SSL_R_NO_CIPHERS_AVAILABLE:
    case SSL_R_NO_SHARED_CIPHER:
    case SSL_R_NO_SUITABLE_SIGNATURE_ALGORITHM:
      return "TLS: no cipher suite in common with the server";
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
      return "TLS: the server requires a client certificate (none is configured)";
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA: {
      const char* alert = ERR_reason_error_string(code);
      return std::string("TLS: the server refused the client certificate (none is configured") +
             (alert ? std::string("; it sent: ") + alert : std::string()) + ")";
    }
    case SSL_R_TLSV1_UNRECOGNIZED_NAME:
      return "TLS: the server does not know the host name sent in the handshake (SNI)";
#ifdef SSL_R_UNEXPECTED_EOF_WHILE_READING
    case SSL_R_UNEXPECTED_EOF_WHILE_READING:
      return "TLS: the server closed the connection during the handshake";
#endif
    case SSL_R_DH_KEY_TOO_SMALL:
    case SSL_R_EE_KEY_TOO_SMALL:
    case SSL_R_CA_KEY_TOO_SMALL:
    case SSL_R_CA_MD_TOO_WEAK:
      return "TLS: the server's key or signature is too weak to be accepted";
    default: {
      const char* what = ERR_reason_error_string(code);
      if (what) return std::string("TLS: handshake failed (") + what + ")";
      char text[64];
      std::snprintf(text, sizeof text, "TLS: handshake failed (OpenSSL error %lX)", code);
      return text;
    }
  }
}

// CURLE_PEER_FAILED_VERIFICATION: the X509 verify result says which check
// of the chain failed. With no such result (X509_V_OK, or the
// X509_V_ERR_UNSPECIFIED libcurl starts a connection at), OpenSSL accepted
// the chain: a handshake that still failed says why (the server's alert
// about our certificate, say); one that did not was refused by libcurl's
// own check of the host name, made after the handshake (OpenSSL's check, in
// libcurl versions that ask it, fails the chain with
// X509_V_ERR_HOSTNAME_MISMATCH).
std::string VerifyReason(long verify, unsigned long ssl_error, std::string_view host) {
  switch (verify) {
    case X509_V_OK:
    case X509_V_ERR_UNSPECIFIED:
      if (ssl_error != 0) {
        std::string reason = SslLibraryReason(ssl_error);
        return reason.empty() ? "TLS: certificate verify failed" : reason;
      }
      return HostMismatch(host);
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
      return HostMismatch(host);
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
      return std::string("TLS: the server's certificate is self-signed and not trusted") +
             kTrustHint;
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      return std::string("TLS: the server's certificate chain ends in a CA that is not trusted") +
             kTrustHint;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
      return "TLS: the server's certificate is from an unknown issuer (a private CA not "
             "trusted here, or the server does not send its intermediate certificate)";
    case X509_V_ERR_CERT_HAS_EXPIRED:
      return "TLS: the server's certificate (or one of its CAs) has expired";
    case X509_V_ERR_CERT_NOT_YET_VALID:
      return "TLS: the server's certificate (or one of its CAs) is not valid yet (check the "
             "clock)";
    case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD:
    case X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD:
      return "TLS: the server's certificate has a malformed validity period";
    case X509_V_ERR_CERT_REVOKED:
      return "TLS: the server's certificate has been revoked";
    case X509_V_ERR_INVALID_CA:
    case X509_V_ERR_INVALID_PURPOSE:
    case X509_V_ERR_CERT_UNTRUSTED:
    case X509_V_ERR_CERT_REJECTED:
      return "TLS: the server's certificate chain is not valid for a TLS server (X509 error " +
             std::to_string(verify) + ")";
    case X509_V_ERR_EE_KEY_TOO_SMALL:
    case X509_V_ERR_CA_KEY_TOO_SMALL:
    case X509_V_ERR_CA_MD_TOO_WEAK:
      return "TLS: the server's certificate uses a key or signature too weak to be accepted";
    default: {
      const char* what = X509_verify_cert_error_string(verify);
      return std::string("TLS: certificate verify failed: ") + (what ? what : "unknown error") +
             " (X509 error " + std::to_string(verify) + ")";
    }
  }
}

// The SSL_CTX's TlsErrorWatch, as ex_data: a shared_ptr the SSL_CTX owns.
int WatchIndex() {
  static const int index = SSL_CTX_get_ex_new_index(
      0, nullptr, nullptr, nullptr, [](void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) {
        delete static_cast<std::shared_ptr<TlsErrorWatch>*>(ptr);
      });
  return index;
}

// SSL_CTX_set_info_callback: runs inside OpenSSL's calls on the connection.
void OnTlsInfo(const SSL* ssl, int where, int ret) {
  auto* watch = static_cast<std::shared_ptr<TlsErrorWatch>*>(
      SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), WatchIndex()));
  if (!watch || !*watch) return;
  if ((where & SSL_CB_READ_ALERT) == SSL_CB_READ_ALERT && (ret >> 8) == SSL3_AL_FATAL) {
    // OpenSSL's reason for a fatal alert is its description past an offset.
    (*watch)->Note(ERR_PACK(ERR_LIB_SSL, 0, SSL_AD_REASON_OFFSET + (ret & 0xff)));
  } else if ((where & SSL_CB_EXIT) && ret <= 0) {
    // A handshake step that failed left its errors queued (libcurl clears
    // the queue before each step; one that waits for the network leaves
    // none): the earliest is the cause.
    (*watch)->Note(ERR_peek_error());
  }
}

}  // namespace

void TlsErrorWatch::Attach(void* ssl_ctx, std::shared_ptr<TlsErrorWatch> watch) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  auto* held = new std::shared_ptr<TlsErrorWatch>(std::move(watch));
  // A context attached twice lets the first watch go.
  delete static_cast<std::shared_ptr<TlsErrorWatch>*>(SSL_CTX_get_ex_data(ctx, WatchIndex()));
  if (SSL_CTX_set_ex_data(ctx, WatchIndex(), held) != 1) {
    delete held;
    return;
  }
  SSL_CTX_set_info_callback(ctx, &OnTlsInfo);
}

std::string TlsReason(const TlsFailure& f) {
  const unsigned long code = f.ssl_error;
  switch (f.code) {
    case CURLE_PEER_FAILED_VERIFICATION:
      return VerifyReason(f.verify_result, code, f.host);
    case CURLE_SSL_CONNECT_ERROR:
      if (std::string reason = code != 0 ? SslLibraryReason(code) : ""; !reason.empty()) {
        return reason;
      }
      if (f.os_errno == ECONNRESET) return "TLS: connection reset during the handshake";
      return "TLS: handshake failed";
    case CURLE_SSL_CLIENTCERT:
      if (std::string reason = code != 0 ? SslLibraryReason(code) : ""; !reason.empty()) {
        return reason;
      }
      return "TLS: the server requires a client certificate (none is configured)";
    case CURLE_SSL_CERTPROBLEM:
      return "TLS: client certificate problem";
    case CURLE_SSL_CIPHER:
      return "TLS: no cipher suite in common with the server";
    case CURLE_SSL_CACERT_BADFILE:
      return "TLS: cannot load the trusted CA certificates (check SSL_CERT_FILE and "
             "SSL_CERT_DIR)";
    case CURLE_SSL_CRL_BADFILE:
      return "TLS: cannot load the certificate revocation list";
    case CURLE_SSL_ISSUER_ERROR:
      return "TLS: certificate issuer check failed";
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
      return "TLS: pinned public key does not match";
    case CURLE_SSL_INVALIDCERTSTATUS:
      return "TLS: certificate status invalid";
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
      return "TLS: crypto engine error";
    case CURLE_SSL_SHUTDOWN_FAILED:
      return "TLS: shutdown failed";
    case CURLE_USE_SSL_FAILED:
      return "TLS: could not be used";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      // A TLS 1.3 server's verdict on the client arrives after the handshake.
      return code != 0 ? SslLibraryReason(code) : "";
    default:
      return "";
  }
}

}  // namespace mcpgw::http
