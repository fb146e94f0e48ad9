// Loading the trusted CAs: the settings' extra files are read at load time,
// so a bad path is an error naming the key and the file; SSL_CERT_FILE and
// SSL_CERT_DIR come from the environment and only warn.
#include "daemon/net/tls_trust.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

namespace mcpgw::http {
namespace {

// Two self-signed CAs (EC P-256, valid for a century).
constexpr const char* kCaOne = R"(-----BEGIN CERTIFICATE-----
MIIBjzCCATWgAwIBAgIURFyXusaMeNbh7if0DteXckyvFhIwCgYIKoZIzj0EAwIw
HDEaMBgGA1UEAwwRbWNwZ3cgdGVzdCBDQSBvbmUwIBcNMjYxMTMwMTA0NDMwWhgP
MjEyNjExMDYxMDQ0MzBaMBwxGjAYBgNVBAMMEW1jcGd3IHRlc3QgQ0Egb25lMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEZKG6bcN5sFMt2o+a9pNf66izITTFXTu+
RhMPy945XRwTsYJ72GNnsqMlbsvvf42Pm5gQRjCN1Uz761sn6AopiaNTMFEwHQYD
VR0OBBYEFMjcgc4D55LSpOdEw/4qU9glnRY6MB8GA1UdIwQYMBaAFMjcgc4D55LS
pOdEw/4qU9glnRY6MA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSAAwRQIg
QF5EoOH8QKvkAnGS2AsWArjqzRWP2jO7wy8vhpHNjI8CIQC3Q+70FgAfzYp3+ZFz
/vizNEd0Y7eJtezYjm/c8fj1BQ==
-----END CERTIFICATE-----
)";
constexpr const char* kCaTwo = R"(-----BEGIN CERTIFICATE-----
MIIBkDCCATWgAwIBAgIUO8Wt3CcNaeejfh3GMV1PTr4w7IcwCgYIKoZIzj0EAwIw
HDEaMBgGA1UEAwwRbWNwZ3cgdGVzdCBDQSB0d28wIBcNMjYxMTMwMTA0NDMwWhgP
MjEyNjExMDYxMDQ0MzBaMBwxGjAYBgNVBAMMEW1jcGd3IHRlc3QgQ0EgdHdvMFkw
EwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5bux3hXWdXgWCISB2cw7Aza8m854KcMs
uiVLXkM82RXaosBTi53F2Z8sO2GnP4S3dbedo0ENM6DqJtZlCp1HtaNTMFEwHQYD
VR0OBBYEFISI5XYlnVprst3i0a7HIUpPiD7vMB8GA1UdIwQYMBaAFISI5XYlnVpr
st3i0a7HIUpPiD7vMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDSQAwRgIh
ALZ2+ol6CEDaOiz9lXB10DsB9ndNGBw2tz0c7CLyjOl4AiEAnmPjSko6qs4w+Ewg
dYRr5bWegR0BgnBoetL7+QJ2nIg=
-----END CERTIFICATE-----
)";

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/mcpgw-trust-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() { REQUIRE(std::system(("rm -rf '" + path + "'").c_str()) == 0); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name, std::ios::binary) << text;
    return path + "/" + name;
  }
};

GetEnv Env(std::map<std::string, std::string> vars) {
  return [vars](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

// The trust, or null and the error's message.
struct Loaded {
  std::shared_ptr<const TlsTrust> trust;
  std::string error;
};

Loaded Load(const std::string& file, const std::string& dir,
            std::map<std::string, std::string> env = {}) {
  base::Result<std::shared_ptr<const TlsTrust>> r =
      TlsTrust::Load(TlsSettings{file, dir}, Env(std::move(env)));
  if (!r.ok()) return {nullptr, r.message()};
  return {std::move(*r), ""};
}

TEST_CASE("without settings or environment the system store is trusted", "[tls]") {
  auto r = Load("", "");
  REQUIRE(r.trust);
  CHECK(r.trust->Describe() == "the system store");
  CHECK(r.trust->Warnings().empty());
  CHECK(r.trust->extra_certificates() == 0);
}

TEST_CASE("SSL_CERT_FILE and SSL_CERT_DIR replace the system bundle and directory", "[tls]") {
  TempDir d;
  std::string ca = d.Write("ca.pem", kCaOne);
  auto r = Load("", "", {{"SSL_CERT_FILE", ca}});
  REQUIRE(r.trust);
  CHECK(r.trust->Describe() == "SSL_CERT_FILE=" + ca + " and the system directory");
  CHECK(r.trust->Warnings().empty());

  auto both = Load("", "", {{"SSL_CERT_FILE", ca}, {"SSL_CERT_DIR", d.path + ":/nonexistent"}});
  REQUIRE(both.trust);
  CHECK(both.trust->Describe() ==
        "SSL_CERT_FILE=" + ca + " and SSL_CERT_DIR=" + d.path + ":/nonexistent");
  CHECK(both.trust->Warnings() ==
        std::vector<std::string>{"SSL_CERT_DIR: /nonexistent is not a directory"});

  // An unreadable SSL_CERT_FILE is not the settings' fault: a warning.
  auto missing = Load("", "", {{"SSL_CERT_FILE", d.path + "/none.pem"}});
  REQUIRE(missing.trust);
  CHECK(missing.trust->Warnings() ==
        std::vector<std::string>{"SSL_CERT_FILE: cannot read " + d.path +
                                 "/none.pem: No such file or directory (every HTTPS server will "
                                 "fail)"});
  CHECK(Load("", "", {{"SSL_CERT_FILE", ""}}).trust->Describe() == "the system store");
}

TEST_CASE("tls.ca_file adds every certificate of a bundle to the system store", "[tls]") {
  TempDir d;
  std::string bundle = d.Write("bundle.pem", std::string("# private CAs\n") + kCaOne + kCaTwo);
  auto r = Load(bundle, "");
  REQUIRE(r.trust);
  CHECK(r.trust->extra_certificates() == 2);
  CHECK(r.trust->Describe() ==
        "the system store + 2 certificates from " + bundle + " (tls.ca_file)");

  CURL* easy = curl_easy_init();
  CHECK(r.trust->Apply(easy) == CURLE_OK);
  curl_easy_cleanup(easy);
}

TEST_CASE("tls.ca_file may be one DER certificate", "[tls]") {
  TempDir d;
  BIO* bio = BIO_new_mem_buf(kCaOne, -1);
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  REQUIRE(cert);
  unsigned char* der = nullptr;
  int n = i2d_X509(cert, &der);
  X509_free(cert);
  REQUIRE(n > 0);
  std::string path = d.Write("ca.der", std::string(reinterpret_cast<char*>(der), n));
  OPENSSL_free(der);
  auto r = Load(path, "");
  REQUIRE(r.trust);
  CHECK(r.trust->extra_certificates() == 1);
}

TEST_CASE("a bad tls.ca_file is an error naming the key and the file", "[tls]") {
  TempDir d;
  CHECK(Load(d.path + "/missing.pem", "").error ==
        "tls.ca_file: cannot read " + d.path + "/missing.pem: No such file or directory");
  CHECK(Load(d.path, "").error == "tls.ca_file: " + d.path + " is not a file");
  std::string text = d.Write("notes.txt", "not a certificate\n");
  CHECK(Load(text, "").error == "tls.ca_file: " + text +
                                    " holds no certificate (expected PEM \"BEGIN CERTIFICATE\" "
                                    "blocks)");
  std::string cut = d.Write("cut.pem", std::string(kCaOne).substr(0, 200));
  CHECK_THAT(Load(cut, "").error,
             Catch::StartsWith("tls.ca_file: " + cut + " is not a valid PEM certificate bundle"));
}

TEST_CASE("tls.ca_dir must be a hashed directory", "[tls]") {
  TempDir d;
  CHECK(Load("", d.path + "/missing").error ==
        "tls.ca_dir: cannot read " + d.path + "/missing: No such file or directory");
  std::string file = d.Write("file", "x");
  CHECK(Load("", file).error == "tls.ca_dir: " + file + " is not a directory");
  d.Write("ca.pem", kCaOne);
  CHECK(Load("", d.path).error == "tls.ca_dir: " + d.path +
                                      " holds no hashed certificate names (run: openssl rehash " +
                                      d.path + ")");
  d.Write("6386ed09.0", kCaOne);
  auto r = Load("", d.path);
  REQUIRE(r.trust);
  CHECK(r.trust->Describe() == "the system store + " + d.path + " (tls.ca_dir)");
}

// Whether `store` holds a certificate with `cert`'s subject.
bool StoreHas(X509_STORE* store, const char* pem) {
  BIO* bio = BIO_new_mem_buf(pem, -1);
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  REQUIRE(cert);
  STACK_OF(X509_OBJECT)* objects = X509_STORE_get0_objects(store);
  bool found = false;
  for (int i = 0; i < sk_X509_OBJECT_num(objects) && !found; i++) {
    X509* have = X509_OBJECT_get0_X509(sk_X509_OBJECT_value(objects, i));
    found = have && X509_cmp(have, cert) == 0;
  }
  X509_free(cert);
  return found;
}

TEST_CASE("every connection of a trust shares one store, loaded once", "[tls]") {
  TempDir d;
  std::string ca = d.Write("ca.pem", kCaOne);
  std::string extra = d.Write("extra.pem", kCaTwo);
  auto r = Load(extra, "", {{"SSL_CERT_FILE", ca}});
  REQUIRE(r.trust);
  SSL_CTX* first = SSL_CTX_new(TLS_client_method());
  SSL_CTX* second = SSL_CTX_new(TLS_client_method());
  REQUIRE(r.trust->Install(first) == CURLE_OK);
  REQUIRE(r.trust->Install(second) == CURLE_OK);
  X509_STORE* store = SSL_CTX_get_cert_store(first);
  CHECK(store == SSL_CTX_get_cert_store(second));
  // SSL_CERT_FILE's certificate and tls.ca_file's, both.
  CHECK(StoreHas(store, kCaOne));
  CHECK(StoreHas(store, kCaTwo));
  // The store outlives the connections that hold it, and they it.
  SSL_CTX_free(first);
  CHECK(StoreHas(SSL_CTX_get_cert_store(second), kCaTwo));
  SSL_CTX_free(second);

  // Another trust (a reload) has a store of its own.
  auto other = Load("", "", {{"SSL_CERT_FILE", ca}});
  SSL_CTX* third = SSL_CTX_new(TLS_client_method());
  REQUIRE(other.trust->Install(third) == CURLE_OK);
  CHECK(StoreHas(SSL_CTX_get_cert_store(third), kCaOne));
  CHECK_FALSE(StoreHas(SSL_CTX_get_cert_store(third), kCaTwo));
  SSL_CTX_free(third);
}

TEST_CASE("an unreadable SSL_CERT_FILE fails every connection as libcurl would", "[tls]") {
  TempDir d;
  auto r = Load("", "", {{"SSL_CERT_FILE", d.path + "/none.pem"}});
  REQUIRE(r.trust);
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  CHECK(r.trust->Install(ctx) == CURLE_SSL_CACERT_BADFILE);
  CHECK(r.trust->Install(ctx) == CURLE_SSL_CACERT_BADFILE);
  SSL_CTX_free(ctx);
}

TEST_CASE("the system store is the bundle and directory libcurl was built with", "[tls]") {
  const TlsTrust::SystemLocations& system = TlsTrust::System();
  // Debian's libcurl names both; other builds name at least one.
  CHECK_FALSE((system.file.empty() && system.dir.empty()));
  auto r = Load("", "");
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  CHECK(r.trust->Install(ctx) == CURLE_OK);
  SSL_CTX_free(ctx);
}

}  // namespace
}  // namespace mcpgw::http
