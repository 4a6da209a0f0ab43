#pragma once
// IPv4/IPv6 addresses and ADDR:PORT endpoints as inspect and doctor use them.
#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace netns::inspect {

struct IpAddr {
  int family = AF_UNSPEC;           // AF_INET or AF_INET6; AF_UNSPEC means "none"
  std::array<uint8_t, 16> bytes{};  // network order; IPv4 uses the first 4

  // nullopt unless `text` is a numeric IPv4 or IPv6 address.
  static std::optional<IpAddr> parse(std::string_view text);
  static IpAddr from_bytes(int family, const void* data);

  [[nodiscard]] size_t size() const noexcept { return family == AF_INET6 ? 16 : 4; }
  [[nodiscard]] bool empty() const noexcept { return family == AF_UNSPEC; }
  // "198.18.0.1", "fd00::1"; "" when empty.
  [[nodiscard]] std::string str() const;
  // True for 0.0.0.0 and ::.
  [[nodiscard]] bool is_any() const noexcept;

  friend bool operator==(const IpAddr&, const IpAddr&) = default;
  friend auto operator<=>(const IpAddr&, const IpAddr&) = default;
};

struct Endpoint {
  IpAddr addr;
  uint16_t port = 0;

  // "198.18.0.1:6789" or "[fd00::1]:6789". The port is required unless
  // `default_port` is given. Throws Error(invalid_argument) quoting `text`
  // and naming `what` ("--mon").
  static Endpoint parse(std::string_view text, std::string_view what,
                        std::optional<uint16_t> default_port = std::nullopt);

  // "198.18.0.1:6789", "[fd00::1]:6789".
  [[nodiscard]] std::string str() const;

  friend bool operator==(const Endpoint&, const Endpoint&) = default;
  friend auto operator<=>(const Endpoint&, const Endpoint&) = default;
};

}  // namespace netns::inspect
