#include "daemon/net/tls_reason.h"

#include <cerrno>
#include <cstdio>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

namespace mcpgw::http {
namespace {

constexpr const char* kTrustHint = " (trust its CA with tls.ca_file or SSL_CERT_FILE)";

bool Contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

std::string HostMismatch(std::string_view host) {
  if (host.empty()) return "TLS: the server's certificate is not valid for its host name";
  return "TLS: the server's certificate is not valid for host " + std::string(host);
}

// CURLE_PEER_FAILED_VERIFICATION: the X509 verify result says which check
// failed. libcurl starts every connection at X509_V_ERR_UNSPECIFIED and
// checks the host name itself before it stores OpenSSL's result, so a
// failed host check leaves that (or, in other versions, X509_V_OK) and its
// own text, which says the name does not "match".
std::string VerifyReason(long verify, std::string_view curl_text, std::string_view host) {
  switch (verify) {
    case X509_V_OK:
    case X509_V_ERR_UNSPECIFIED:
      if (Contains(curl_text, "match")) return HostMismatch(host);
      return "TLS: certificate verify failed";
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

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

unsigned long OpensslErrorCode(std::string_view text) {
  constexpr std::string_view kTag = "error:";
  for (size_t at = text.find(kTag); at != std::string_view::npos; at = text.find(kTag, at + 1)) {
    std::string_view hex = text.substr(at + kTag.size());
    size_t n = 0;
    while (n < hex.size() && n < 16 && IsHex(hex[n])) n++;
    if (n == 0 || n > 8 || n >= hex.size() || hex[n] != ':') continue;
    unsigned long code = 0;
    for (size_t i = 0; i < n; i++) {
      char c = hex[i];
      int digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      code = code * 16 + static_cast<unsigned long>(digit);
    }
    if (code != 0) return code;
  }
  return 0;
}

std::string TlsReason(const TlsFailure& f) {
  unsigned long code = OpensslErrorCode(f.curl_text);
  switch (f.code) {
    case CURLE_PEER_FAILED_VERIFICATION:
      return VerifyReason(f.verify_result, f.curl_text, f.host);
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
