#pragma once
// Aligned text columns for terminal output: each column as wide as its
// widest cell, two spaces between columns, no trailing blanks.
#include <string>
#include <vector>

namespace netns::inspect {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header = {}, std::string indent = "  ");
  void add(std::vector<std::string> row);
  [[nodiscard]] bool empty() const noexcept { return rows_.empty(); }
  [[nodiscard]] std::string render() const;

 private:
  std::vector<std::string> header_;
  std::string indent_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace netns::inspect
