#include "daemon/net/tls_trust.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace mcpgw::http {
namespace {

// A CA bundle is well under a megabyte; this only bounds a wrong path.
constexpr long kMaxBundleBytes = 64L << 20;

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The whole file, or an error naming it.
base::Result<std::string> ReadFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return base::InvalidInput("cannot read " + path + ": " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode)) {
    return base::InvalidInput(path + " is not a file");
  }
  if (st.st_size > kMaxBundleBytes) {
    return base::InvalidInput(path + " is larger than 64 MiB: not a certificate bundle");
  }
  FILE* f = std::fopen(path.c_str(), "rbe");
  if (!f) {
    return base::InvalidInput("cannot read " + path + ": " + std::strerror(errno));
  }
  std::string text;
  char chunk[16384];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0 &&
         static_cast<long>(text.size()) <= kMaxBundleBytes) {
    text.append(chunk, n);
  }
  bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    return base::InvalidInput("cannot read " + path);
  }
  return text;
}

// Every certificate of a PEM bundle (other PEM blocks are skipped), or the
// one certificate of a DER file.
base::Status ParseCertificates(const std::string& path, const std::string& text,
                               std::vector<x509_st*>& out) {
  BIO* bio = BIO_new_mem_buf(text.data(), static_cast<int>(text.size()));
  if (!bio) {
    return base::InvalidInput("out of memory");
  }
  STACK_OF(X509_INFO)* infos = PEM_X509_INFO_read_bio(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (!infos) {
    unsigned long code = ERR_peek_last_error();
    const char* why = ERR_reason_error_string(code);
    ERR_clear_error();
    return base::InvalidInput(path + " is not a valid PEM certificate bundle" +
                              (why ? std::string(" (") + why + ")" : std::string()));
  }
  for (int i = 0; i < sk_X509_INFO_num(infos); i++) {
    X509_INFO* info = sk_X509_INFO_value(infos, i);
    if (info->x509) {
      out.push_back(info->x509);
      info->x509 = nullptr;  // now ours
    }
  }
  sk_X509_INFO_pop_free(infos, X509_INFO_free);
  ERR_clear_error();
  if (out.empty()) {
    const auto* der = reinterpret_cast<const unsigned char*>(text.data());
    if (X509* cert = d2i_X509(nullptr, &der, static_cast<long>(text.size()))) {
      out.push_back(cert);
    }
    ERR_clear_error();
  }
  if (out.empty()) {
    return base::InvalidInput(path +
                              " holds no certificate (expected PEM \"BEGIN CERTIFICATE\" blocks)");
  }
  return base::Status();
}

// "5d30f3c2.0": the name `openssl rehash` gives a certificate (".r0" a CRL).
bool IsHashedName(const char* name) {
  size_t len = std::strlen(name);
  if (len < 10 || name[8] != '.') return false;
  for (size_t i = 0; i < 8; i++) {
    if (!std::isxdigit(static_cast<unsigned char>(name[i]))) return false;
  }
  size_t i = name[9] == 'r' ? 10 : 9;
  if (i >= len) return false;
  for (; i < len; i++) {
    if (name[i] < '0' || name[i] > '9') return false;
  }
  return true;
}

base::Status CheckHashedDir(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return base::InvalidInput("cannot read " + path + ": " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) {
    return base::InvalidInput(path + " is not a directory");
  }
  DIR* dir = opendir(path.c_str());
  if (!dir) {
    return base::InvalidInput("cannot read " + path + ": " + std::strerror(errno));
  }
  bool hashed = false;
  while (dirent* entry = readdir(dir)) {
    if (IsHashedName(entry->d_name)) {
      hashed = true;
      break;
    }
  }
  closedir(dir);
  if (!hashed) {
    return base::InvalidInput(path + " holds no hashed certificate names (run: openssl rehash " +
                              path + ")");
  }
  return base::Status();
}

// The callback hands over OpenSSL objects: only libcurl built on OpenSSL
// can take the extra certificates.
bool CurlUsesOpenssl(std::string* backend) {
  const curl_version_info_data* info = curl_version_info(CURLVERSION_NOW);
  *backend = info && info->ssl_version ? info->ssl_version : "no TLS library";
  return backend->find("OpenSSL") != std::string::npos;
}

}  // namespace

TlsTrust::~TlsTrust() {
  for (x509_st* cert : certs_) X509_free(cert);
  X509_STORE_free(store_);
}

const TlsTrust::SystemLocations& TlsTrust::System() {
  static const SystemLocations system = [] {
    SystemLocations s;
#if LIBCURL_VERSION_NUM >= 0x075400  // CURLINFO_CAINFO, CURLINFO_CAPATH: 7.84
    if (CURL* easy = curl_easy_init()) {
      char* file = nullptr;
      char* dir = nullptr;
      if (curl_easy_getinfo(easy, CURLINFO_CAINFO, &file) == CURLE_OK && file) {
        s.file = file;
        s.file_built_in = true;
      }
      if (curl_easy_getinfo(easy, CURLINFO_CAPATH, &dir) == CURLE_OK && dir) s.dir = dir;
      curl_easy_cleanup(easy);
      if (!s.file.empty() || !s.dir.empty()) return s;
    }
#endif
    s.file = X509_get_default_cert_file();
    s.dir = X509_get_default_cert_dir();
    return s;
  }();
  return system;
}

base::Result<std::shared_ptr<const TlsTrust>> TlsTrust::Load(const TlsSettings& settings,
                                                             const GetEnv& get_env) {
  auto trust = std::make_shared<TlsTrust>();
  if (auto file = get_env("SSL_CERT_FILE"); file && !file->empty()) trust->env_file_ = *file;
  if (auto dir = get_env("SSL_CERT_DIR"); dir && !dir->empty()) trust->env_dir_ = *dir;
  if (!settings.ca_file.empty()) {
    base::Result<std::string> text = ReadFile(settings.ca_file);
    if (!text.ok()) return std::move(text).status().Prefixed("tls.ca_file: ");
    base::Status parsed = ParseCertificates(settings.ca_file, *text, trust->certs_);
    if (!parsed.ok()) return std::move(parsed).Prefixed("tls.ca_file: ");
    trust->extra_file_ = settings.ca_file;
  }
  if (!settings.ca_dir.empty()) {
    if (base::Status dir = CheckHashedDir(settings.ca_dir); !dir.ok()) {
      return std::move(dir).Prefixed("tls.ca_dir: ");
    }
    trust->extra_dir_ = settings.ca_dir;
  }
  std::string backend;
  trust->shared_store_ = CurlUsesOpenssl(&backend);
  if ((!trust->certs_.empty() || !trust->extra_dir_.empty()) && !trust->shared_store_) {
    return base::InvalidInput(std::string(settings.ca_file.empty() ? "tls.ca_dir" : "tls.ca_file") +
                              ": needs libcurl built with OpenSSL (this one uses " + backend + ")");
  }
  return std::shared_ptr<const TlsTrust>(std::move(trust));
}

std::shared_ptr<const TlsTrust> TlsTrust::FromProcessEnv() {
  // Without settings only the environment is read, which cannot fail.
  return Load({},
              [](std::string_view name) -> std::optional<std::string> {
                const char* v = std::getenv(std::string(name).c_str());
                return v ? std::optional<std::string>(v) : std::nullopt;
              })
      .value_or(nullptr);
}

CURLcode TlsTrust::Apply(CURL* easy) const {
  CURLcode rc = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy, option, value);
  };
  if (shared_store_) {
    // Install hands every connection the store: libcurl loads nothing.
    set(CURLOPT_CAINFO, static_cast<char*>(nullptr));
    set(CURLOPT_CAPATH, static_cast<char*>(nullptr));
    set(CURLOPT_PROXY_CAINFO, static_cast<char*>(nullptr));
    set(CURLOPT_PROXY_CAPATH, static_cast<char*>(nullptr));
#if LIBCURL_VERSION_NUM >= 0x075700
    // A store libcurl cached would replace ours.
    set(CURLOPT_CA_CACHE_TIMEOUT, 0L);
#endif
  } else {
    if (!env_file_.empty()) {
      set(CURLOPT_CAINFO, env_file_.c_str());
      set(CURLOPT_PROXY_CAINFO, env_file_.c_str());
    }
    if (!env_dir_.empty()) {
      set(CURLOPT_CAPATH, env_dir_.c_str());
      set(CURLOPT_PROXY_CAPATH, env_dir_.c_str());
    }
  }
  if (extends_store()) {
    // A resumed TLS session skips the certificate check: a session made
    // under these CAs must not outlive them when a reload drops them.
    set(CURLOPT_SSL_SESSIONID_CACHE, 0L);
  }
  return rc;
}

void TlsTrust::LoadStore() const {
  X509_STORE* store = X509_STORE_new();
  if (!store) return;
  const SystemLocations& system = System();
  const std::string& file = env_file_.empty() ? system.file : env_file_;
  const std::string& dirs = env_dir_.empty() ? system.dir : env_dir_;
  // As libcurl fails a connection whose CA file cannot be read, so does
  // Install (OpenSSL's own default file, when libcurl names none, may be
  // absent, as for OpenSSL's tools). A directory is read only when a chain
  // needs it, so it cannot fail here.
  const bool must_read = !env_file_.empty() || system.file_built_in;
  if (!file.empty() && X509_STORE_load_locations(store, file.c_str(), nullptr) != 1 && must_read) {
    ERR_clear_error();
    X509_STORE_free(store);
    return;
  }
  X509_LOOKUP* lookup = nullptr;
  if (!dirs.empty() || !extra_dir_.empty()) {
    lookup = X509_STORE_add_lookup(store, X509_LOOKUP_hash_dir());
  }
  // ':'-separated, as SSL_CERT_DIR; tls.ca_dir after them.
  size_t start = 0;
  while (lookup && !dirs.empty() && start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = dirs.substr(start, end - start);
    if (!dir.empty()) X509_LOOKUP_add_dir(lookup, dir.c_str(), X509_FILETYPE_PEM);
    start = end + 1;
  }
  if (lookup && !extra_dir_.empty()) {
    X509_LOOKUP_add_dir(lookup, extra_dir_.c_str(), X509_FILETYPE_PEM);
  }
  for (x509_st* cert : certs_) X509_STORE_add_cert(store, cert);  // a duplicate is harmless
  ERR_clear_error();                                              // not libcurl's to report
  // What libcurl sets on the stores it makes: a trusted intermediate (or a
  // self-signed server certificate named in tls.ca_file) ends the chain.
  X509_STORE_set_flags(store, X509_V_FLAG_TRUSTED_FIRST | X509_V_FLAG_PARTIAL_CHAIN);
  store_ = store;
}

CURLcode TlsTrust::Install(void* ssl_ctx) const {
  if (!shared_store_) return CURLE_OK;
  std::call_once(store_once_, [this] { LoadStore(); });
  if (!store_) return CURLE_SSL_CACERT_BADFILE;
  SSL_CTX_set1_cert_store(static_cast<SSL_CTX*>(ssl_ctx), store_);
  return CURLE_OK;
}

std::string TlsTrust::Describe() const {
  std::string out;
  if (env_file_.empty() && env_dir_.empty()) {
    out = "the system store";
  } else {
    out = env_file_.empty() ? "the system bundle" : "SSL_CERT_FILE=" + env_file_;
    out += env_dir_.empty() ? " and the system directory" : " and SSL_CERT_DIR=" + env_dir_;
  }
  if (!certs_.empty()) {
    out += " + " + Plural(certs_.size(), "certificate", "certificates") + " from " + extra_file_ +
           " (tls.ca_file)";
  }
  if (!extra_dir_.empty()) out += " + " + extra_dir_ + " (tls.ca_dir)";
  return out;
}

std::vector<std::string> TlsTrust::Warnings() const {
  std::vector<std::string> out;
  if (!env_file_.empty()) {
    if (base::Result<std::string> file = ReadFile(env_file_); !file.ok()) {
      out.push_back("SSL_CERT_FILE: " + file.message() + " (every HTTPS server will fail)");
    }
  }
  size_t start = 0;
  while (!env_dir_.empty() && start <= env_dir_.size()) {
    size_t end = env_dir_.find(':', start);
    if (end == std::string::npos) end = env_dir_.size();
    std::string dir = env_dir_.substr(start, end - start);
    struct stat st;
    if (!dir.empty() && (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))) {
      out.push_back("SSL_CERT_DIR: " + dir + " is not a directory");
    }
    start = end + 1;
  }
  return out;
}

}  // namespace mcpgw::http
