// The job file of `grundy run` (job_file.hpp).
#include "app/job_file.hpp"

#include <cctype>
#include <fstream>

#include "grundy/error.hpp"

namespace grundy::app {
namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Keys name long options: letters, digits, '-' and '_'.
bool is_option_name(const std::string& key) {
    if (key.empty()) return false;
    for (const char c : key)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
    return true;
}

}  // namespace

std::vector<JobFileSection> read_job_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw Error("cannot read job file " + path);
    std::vector<JobFileSection> sections;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        const std::string t = trim(line);
        if (t.empty() || t[0] == '#' || t[0] == ';') continue;
        const std::string where = path + ":" + std::to_string(number);
        if (t.front() == '[') {
            if (t.back() != ']') throw Error(where + ": malformed section header '" + t + "'");
            const std::string name = trim(t.substr(1, t.size() - 2));
            if (name == "run" || !find_command(name))
                throw Error(where + ": unknown section [" + name + "] (sections name commands)");
            sections.push_back({name, {"", path + " [" + name + "]"}});
            continue;
        }
        const size_t equals = t.find('=');
        if (equals == std::string::npos)
            throw Error(where + ": expected 'key = value', got '" + t + "'");
        const std::string key = trim(t.substr(0, equals));
        if (!is_option_name(key)) throw Error(where + ": '" + key + "' is not an option name");
        if (sections.empty()) throw Error(where + ": option outside any [section]");
        sections.back().job.text += t + "\n";
    }
    if (sections.empty()) throw Error("job file " + path + " has no sections");
    return sections;
}

}  // namespace grundy::app
