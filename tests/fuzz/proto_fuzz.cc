// libFuzzer target for the local protocol's decoder: the input is a byte
// stream cut into reads at positions the input itself chooses, fed through
// FrameDecoder (with a small bound so over-limit paths are reached) and each
// frame through DecodeMessage; every error reply the daemon would send must
// itself decode. Build with clang: -fsanitize=fuzzer,address,undefined.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "proto/frame.h"
#include "proto/messages.h"

namespace {

void CheckReplyDecodes(const std::string& reply) {
  if (reply.empty() || reply.back() != '\n') abort();
  std::string_view line(reply.data(), reply.size() - 1);
  if (line.find('\n') != std::string_view::npos) abort();
  if (!mcpgw::proto::DecodeMessage(line).ok) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using mcpgw::proto::FrameDecoder;
  if (size < 1) return 0;
  // First byte: read size (1..256) for splitting the rest.
  size_t chunk = static_cast<size_t>(data[0]) + 1;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  FrameDecoder decoder(4096);
  bool too_large = false;
  for (size_t off = 0; off < input.size() && !too_large; off += chunk) {
    decoder.Append(input.substr(off, chunk));
    if (decoder.buffered() > decoder.max_frame_bytes() + chunk) abort();
    std::string_view frame;
    for (;;) {
      FrameDecoder::Status status = decoder.Next(&frame);
      if (status == FrameDecoder::Status::kNeedMore) break;
      if (status == FrameDecoder::Status::kTooLarge) {
        too_large = true;
        break;
      }
      if (frame.size() >= decoder.max_frame_bytes()) abort();
      mcpgw::proto::Decoded d = mcpgw::proto::DecodeMessage(frame);
      if (!d.ok) {
        CheckReplyDecodes(
            mcpgw::proto::EncodeProtocolError(d.error.id, d.error.code, d.error.message));
        continue;
      }
      const mcpgw::proto::Message& m = d.message;
      if (m.type != mcpgw::proto::MessageType::kResponse && !m.params->IsObject()) abort();
      if (m.type == mcpgw::proto::MessageType::kRequest) {
        // Echo the method back as text, as a reply would carry untrusted text.
        CheckReplyDecodes(mcpgw::proto::EncodeTextResult(m.id, m.method));
      }
    }
  }
  // Arbitrary bytes as reply text must always encode into one valid frame.
  CheckReplyDecodes(mcpgw::proto::EncodeTextResult("1", input.substr(0, 1024)));
  return 0;
}
