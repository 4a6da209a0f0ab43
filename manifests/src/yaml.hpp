#pragma once
// A small YAML document tree and emitter for the manifests this tool renders.
// Why not a YAML library: we only ever *write* YAML, the output must be
// byte-stable (committed examples are diffed against it) and must carry
// comments next to the fields they explain (updateStrategy: OnDelete says why).
// Every string that could be read back as something else (true, 0123, "a: b",
// a leading '-') is double-quoted, so no user value changes type on the way.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace netns::manifest {

class Node {
 public:
  struct Entry;  // a map entry or a sequence item, with an optional comment

  static Node str(std::string_view value);
  static Node integer(std::int64_t value);
  static Node boolean(bool value);
  static Node map();
  static Node seq();
  // A sequence of plain strings, the common case for command lines.
  static Node strings(const std::vector<std::string>& values);

  // Map: appends `key: value` (keys keep insertion order). Returns *this.
  Node& set(std::string key, Node value, std::string comment = {});
  // Sequence: appends an item. Returns *this.
  Node& push(Node value, std::string comment = {});

  [[nodiscard]] bool is_map() const;
  [[nodiscard]] bool is_seq() const;
  [[nodiscard]] bool is_scalar() const;
  [[nodiscard]] bool empty() const;  // an empty map or sequence
  [[nodiscard]] const std::vector<Entry>& entries() const;
  // The scalar rendered as YAML (quoted where needed). Only for scalars.
  [[nodiscard]] const std::string& scalar_text() const;
  [[nodiscard]] bool multiline() const;  // a string with newlines: block literal

 private:
  enum class Kind { scalar, map, seq };
  Kind kind_ = Kind::scalar;
  std::string text_;  // rendered scalar, or the raw string for multiline
  bool multiline_ = false;
  std::vector<Entry> entries_;
};

struct Node::Entry {
  std::string key;  // empty for sequence items
  Node value;
  std::string comment;  // may hold several lines
};

// Renders one document (no leading "---"). Indentation is two spaces;
// sequences are indented under their key.
std::string emit(const Node& doc);

// Several documents separated by "---", with an optional header comment.
std::string emit_documents(const std::vector<Node>& docs, std::string_view header_comment = {});

// The scalar as YAML: plain when unambiguous, otherwise double-quoted.
std::string quote_scalar(std::string_view value);

}  // namespace netns::manifest
