// `verdict`: see cli/verdict_cli.h.
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/verdict_cli.h"

int main(int argc, char** argv) {
  verdict::CliEnvironment env{std::cout, std::cerr, std::cin,
                              [](const std::string& name) -> std::optional<std::string> {
                                const char* value = std::getenv(name.c_str());
                                if (value == nullptr) return std::nullopt;
                                return std::string(value);
                              }};
  return verdict::RunVerdictCli(std::vector<std::string>(argv + 1, argv + argc), env);
}
