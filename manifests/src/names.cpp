#include "names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "netns/cluster_id.hpp"
#include "netns/error.hpp"

namespace netns::manifest {

namespace {

constexpr size_t kMaxLabel = 63;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

[[noreturn]] void invalid(std::string message, std::string hint) {
  throw Error(Errc::invalid_argument, std::move(message), std::move(hint));
}

// FNV-1a: stable across builds and platforms, which std::hash is not.
std::uint32_t fnv1a(std::string_view text) {
  std::uint32_t h = 2166136261U;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619U;
  }
  return h;
}

}  // namespace

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::rbd: return "rbd";
    case Kind::cephfs: return "cephfs";
    case Kind::nfs: return "nfs";
  }
  return "rbd";
}

std::string_view config_section(Kind kind) {
  switch (kind) {
    case Kind::rbd: return "rbd";
    case Kind::cephfs: return "cephFS";
    case Kind::nfs: return "nfs";
  }
  return "rbd";
}

std::string_view default_driver(Kind kind) {
  switch (kind) {
    case Kind::rbd: return "rbd.csi.ceph.com";
    case Kind::cephfs: return "cephfs.csi.ceph.com";
    case Kind::nfs: return "nfs.csi.ceph.com";
  }
  return "rbd.csi.ceph.com";
}

Kind parse_kind(std::string_view text) {
  if (text == "rbd") return Kind::rbd;
  if (text == "cephfs") return Kind::cephfs;
  if (text == "nfs") return Kind::nfs;
  invalid(fmt::format("invalid kind {}", quote(text)), "use rbd, cephfs or nfs");
}

Kind kind_from_driver(std::string_view driver) {
  for (Kind kind : {Kind::rbd, Kind::cephfs, Kind::nfs}) {
    const std::string suffix = fmt::format("{}.csi.ceph.com", kind_name(kind));
    if (driver == suffix || driver.ends_with("." + suffix)) return kind;
  }
  invalid(fmt::format("cannot tell the kind of CSI driver {}", quote(driver)),
          "ceph-csi drivers end in rbd.csi.ceph.com, cephfs.csi.ceph.com or nfs.csi.ceph.com; "
          "for another name pass --kind rbd|cephfs|nfs");
}

void validate_driver(std::string_view driver) {
  const bool ok = !driver.empty() && driver.size() <= kMaxLabel && lower_alnum(driver.front()) &&
                  lower_alnum(driver.back()) &&
                  std::all_of(driver.begin(), driver.end(),
                              [](char c) { return lower_alnum(c) || c == '.' || c == '-'; });
  if (!ok) {
    invalid(fmt::format("invalid CSI driver name {}", quote(driver)),
            "a driver name is at most 63 characters of a-z 0-9 . -, starting and ending with a "
            "letter or digit (e.g. rbd.csi.ceph.com)");
  }
}

void validate_dns_label(std::string_view what, std::string_view value) {
  const bool ok = !value.empty() && value.size() <= kMaxLabel && lower_alnum(value.front()) &&
                  lower_alnum(value.back()) &&
                  std::all_of(value.begin(), value.end(),
                              [](char c) { return lower_alnum(c) || c == '-'; });
  if (!ok) {
    invalid(fmt::format("invalid {} {}", what, quote(value)),
            "a Kubernetes name here is at most 63 characters of a-z 0-9 -, starting and ending "
            "with a letter or digit");
  }
}

void validate_image(std::string_view image) {
  const bool ok = !image.empty() && std::none_of(image.begin(), image.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return std::isspace(u) != 0 || u < 0x20 || c == '"' || c == '\'' || c == '\\';
  });
  if (!ok) {
    invalid(fmt::format("invalid image reference {}", quote(image)),
            "pass an image such as registry.example.com/netns-holder:0.1.0 (no spaces or quotes)");
  }
}

void validate_abs_path(std::string_view what, std::string_view path) {
  const bool ok = path.starts_with('/') && (path.size() == 1 || !path.ends_with('/')) &&
                  path.find("/../") == std::string_view::npos && !path.ends_with("/..") &&
                  path.find("//") == std::string_view::npos &&
                  std::none_of(path.begin(), path.end(), [](char c) {
                    const auto u = static_cast<unsigned char>(c);
                    return std::isspace(u) != 0 || u < 0x20 || c == '"' || c == '\\';
                  });
  if (!ok) {
    invalid(fmt::format("invalid {} {}", what, quote(path)),
            "pass an absolute path without '..', '//', spaces or a trailing '/'");
  }
}

std::string holder_name(Kind kind, std::string_view cluster_id) {
  validate_cluster_id(cluster_id);
  std::string prefix = fmt::format("netns-holder-{}-", kind_name(kind));
  std::string part;
  bool lossy = false;
  for (char c : cluster_id) {
    if (c >= 'A' && c <= 'Z') {
      part += static_cast<char>(c - 'A' + 'a');
      lossy = true;
    } else if (lower_alnum(c) || c == '-') {
      part += c;
    } else {
      part += '-';
      lossy = true;
    }
  }
  // A label must end with an alphanumeric; an ID may end in '-' or '.', and
  // dropping that would make "a-" and "a" share a name.
  if (part.back() == '-') lossy = true;
  const size_t room = kMaxLabel - prefix.size();
  if (lossy || part.size() > room) {
    const std::string hash = fmt::format("{:08x}", fnv1a(cluster_id));
    part = part.substr(0, std::min(part.size(), room - hash.size() - 1));
    while (!part.empty() && part.back() == '-') part.pop_back();
    part += part.empty() ? hash : "-" + hash;
  }
  return prefix + part;
}

std::string holder_dir(std::string_view kubelet_dir, std::string_view driver) {
  return fmt::format("{}/plugins/{}", kubelet_dir == "/" ? "" : kubelet_dir, driver);
}

std::string net_namespace_file_path(std::string_view kubelet_dir, std::string_view driver,
                                    std::string_view cluster_id, bool socket_mode) {
  const HolderFileNames files = holder_file_names(cluster_id);
  std::string path = fmt::format("{}/{}", holder_dir(kubelet_dir, driver),
                                 socket_mode ? files.socket : files.ns_link);
  // sizeof(sockaddr_un::sun_path) is 108, including the terminating NUL.
  constexpr size_t kMaxSocketPath = 107;
  if (socket_mode && path.size() > kMaxSocketPath) {
    invalid(fmt::format("socket path {} is {} bytes; a unix socket path holds at most {}",
                        quote(path), path.size(), kMaxSocketPath),
            "use a shorter cluster ID, driver name or --kubelet-dir, or symlink mode");
  }
  return path;
}

}  // namespace netns::manifest
