// TlsTrust: which certificate authorities HTTPS transfers trust, as one
// immutable value. The daemon loads it at start-up and on every reload and
// hands it to each worker's HttpClient; a transfer keeps the value it started
// with, so a reload changes trust for new connections only.
//
// Composition, in the order OpenSSL tools follow:
//   - the system store libcurl was built with (a bundle file and, on Debian
//     and most Linux systems, a hashed directory);
//   - SSL_CERT_FILE replaces the bundle file and SSL_CERT_DIR the directory
//     (':'-separated), as for `openssl`, Python or Git built on OpenSSL;
//   - the settings' tls.ca_file (a PEM bundle) and tls.ca_dir (a hashed
//     directory) are added on top of that, so a private CA does not cut off
//     public servers.
// The extra certificates are added to each new connection's store by
// ExtendStore, which the transfer's CURLOPT_SSL_CTX_FUNCTION callback calls
// (libcurl built with OpenSSL; HttpClient sets it); libcurl's shared CA
// cache and TLS session resumption are turned off for those transfers, so
// certificates of one trust never vouch for another's connections.
#pragma once

#include <curl/curl.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"

struct x509_st;  // OpenSSL's X509

namespace mcpgw {

namespace http {

using GetEnv = std::function<std::optional<std::string>(std::string_view name)>;

class TlsTrust {
 public:
  struct Result {
    std::shared_ptr<const TlsTrust> trust;  // null when `error` is set
    std::string error;  // "tls.ca_file: cannot read /etc/x.pem: No such file or directory"
  };
  // Reads every certificate of settings.ca_file and checks settings.ca_dir;
  // takes SSL_CERT_FILE and SSL_CERT_DIR from `get_env`. Only the settings'
  // files can make it fail: a bad SSL_CERT_FILE is reported by Warnings()
  // and by the transfers that need it, as it would be for OpenSSL tools.
  static Result Load(const TlsSettings& settings, const GetEnv& get_env);
  // The process environment's SSL_CERT_FILE / SSL_CERT_DIR, no extras.
  static std::shared_ptr<const TlsTrust> FromProcessEnv();

  TlsTrust() = default;  // libcurl's defaults
  ~TlsTrust();
  TlsTrust(const TlsTrust&) = delete;
  TlsTrust& operator=(const TlsTrust&) = delete;

  // Sets the CA options of one transfer (also for an HTTPS proxy). The
  // TlsTrust must outlive the transfer.
  CURLcode Apply(CURL* easy) const;
  // Whether ExtendStore has certificates to add (tls.ca_file, tls.ca_dir).
  bool extends_store() const { return !certs_.empty() || !extra_dir_.empty(); }
  // Adds them to a new connection's store: call it from the transfer's
  // CURLOPT_SSL_CTX_FUNCTION callback with its SSL_CTX. libcurl loads the
  // system (or SSL_CERT_*) certificates into the same store, before or
  // after this depending on its version; either way it ends up with both.
  CURLcode ExtendStore(void* ssl_ctx) const;

  // One line for the log, naming the sources: "system store + 3
  // certificates from /etc/mcpgw/ca.pem (tls.ca_file)".
  std::string Describe() const;
  // Problems with SSL_CERT_FILE / SSL_CERT_DIR worth a warning at start-up.
  std::vector<std::string> Warnings() const;
  size_t extra_certificates() const { return certs_.size(); }

 private:
  std::string env_file_;  // SSL_CERT_FILE
  std::string env_dir_;   // SSL_CERT_DIR
  std::string extra_file_;
  std::string extra_dir_;
  std::vector<x509_st*> certs_;  // owned: the certificates of extra_file_
};

}  // namespace http
}  // namespace mcpgw
