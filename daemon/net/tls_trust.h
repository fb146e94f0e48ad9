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
// With libcurl built on OpenSSL, all of it is loaded into one X509_STORE,
// once per TlsTrust, on the first TLS connection that needs it; every
// connection's SSL_CTX then takes that store by reference (Install, called
// from the transfer's CURLOPT_SSL_CTX_FUNCTION callback, which HttpClient
// sets), and libcurl is told to load no CA file or directory of its own.
// Left to itself, libcurl 7.88 with Debian's defaults (a bundle and a
// directory both built in; its CA cache serves only one of the two) parses
// the whole system bundle again for every new connection: tens of
// milliseconds of CPU each. TLS session resumption is turned off for a trust
// with extra CAs, so a session made under them never outlives a reload that
// drops them.
#pragma once

#include <curl/curl.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"

struct x509_st;        // OpenSSL's X509
struct x509_store_st;  // OpenSSL's X509_STORE

namespace mcpgw {

namespace http {

using GetEnv = std::function<std::optional<std::string>(std::string_view name)>;

class TlsTrust {
 public:
  // Reads every certificate of settings.ca_file and checks settings.ca_dir;
  // takes SSL_CERT_FILE and SSL_CERT_DIR from `get_env`. Only the settings'
  // files can make it fail: a bad SSL_CERT_FILE is reported by Warnings()
  // and by the transfers that need it, as it would be for OpenSSL tools.
  // An error's message: "tls.ca_file: cannot read /etc/x.pem: No such file
  // or directory".
  static base::Result<std::shared_ptr<const TlsTrust>> Load(const TlsSettings& settings,
                                                            const GetEnv& get_env);
  // The process environment's SSL_CERT_FILE / SSL_CERT_DIR, no extras.
  static std::shared_ptr<const TlsTrust> FromProcessEnv();

  TlsTrust() = default;  // libcurl's defaults
  ~TlsTrust();
  TlsTrust(const TlsTrust&) = delete;
  TlsTrust& operator=(const TlsTrust&) = delete;

  // Sets the CA options of one transfer (also for an HTTPS proxy). The
  // TlsTrust must outlive the transfer.
  CURLcode Apply(CURL* easy) const;
  // Whether there are certificates beyond the system's (tls.ca_file, tls.ca_dir).
  bool extends_store() const { return !certs_.empty() || !extra_dir_.empty(); }
  // Hands the shared store to a new connection's SSL_CTX: call it from the
  // transfer's CURLOPT_SSL_CTX_FUNCTION callback. Loads the store on first
  // use (thread-safe: every worker's connections share it). Fails with
  // CURLE_SSL_CACERT_BADFILE when the trust's bundle or directory could not
  // be read at all, as libcurl would. Without OpenSSL (Apply then leaves the
  // CA options to libcurl) it does nothing.
  CURLcode Install(void* ssl_ctx) const;

  // The system bundle file and directory libcurl was built with, else
  // OpenSSL's defaults; "" where there is none.
  struct SystemLocations {
    std::string file;
    std::string dir;
    bool file_built_in = false;  // libcurl's own: a connection fails without it
  };
  static const SystemLocations& System();

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
  bool shared_store_ = false;    // Apply leaves the CAs to Install (OpenSSL)

  // Loaded on first use by Install.
  void LoadStore() const;
  mutable std::once_flag store_once_;
  mutable x509_store_st* store_ = nullptr;  // owned; null when it failed
};

}  // namespace http
}  // namespace mcpgw
