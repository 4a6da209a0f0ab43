#include "netns/cluster_id.hpp"

#include "netns/error.hpp"

namespace netns {

namespace {
bool allowed_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}
}  // namespace

std::optional<std::string> cluster_id_problem(std::string_view id) {
  if (id.empty()) return "it is empty";
  if (id.size() > kMaxClusterIdLength)
    return "it is " + std::to_string(id.size()) + " characters long (at most " +
           std::to_string(kMaxClusterIdLength) + ")";
  if (id == "." || id == "..") return "it is a directory reference";
  if (id.front() == '-') return "it starts with '-'";
  for (size_t i = 0; i < id.size(); ++i) {
    if (!allowed_char(id[i]))
      return "character " + std::to_string(i + 1) + " (" + quote(id.substr(i, 1)) +
             ") is not allowed";
  }
  return std::nullopt;
}

void validate_cluster_id(std::string_view id) {
  if (auto problem = cluster_id_problem(id)) {
    throw Error(Errc::invalid_argument, "invalid cluster ID " + quote(id) + ": " + *problem,
                "a cluster ID is 1-64 characters of A-Z a-z 0-9 . _ -, not \".\" or \"..\", "
                "and does not start with '-'");
  }
}

HolderFileNames holder_file_names(std::string_view id) {
  validate_cluster_id(id);
  std::string base(id);
  return HolderFileNames{base + std::string(kLinkSuffix), base + std::string(kRecordSuffix),
                         base + std::string(kSocketSuffix), base + std::string(kLockSuffix)};
}

std::string cluster_id_from_file_name(std::string_view name, std::string_view suffix) {
  if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) return {};
  std::string id(name.substr(0, name.size() - suffix.size()));
  return cluster_id_problem(id) ? std::string() : id;
}

}  // namespace netns
