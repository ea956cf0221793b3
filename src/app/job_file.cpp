// The job file of `grundy run` (job_file.hpp).
#include "app/job_file.hpp"

#include <fstream>

#include "grundy/error.hpp"

namespace grundy::app {
namespace {

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
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
        if (t.find('=') == std::string::npos)
            throw Error(where + ": expected 'key = value', got '" + t + "'");
        if (sections.empty()) throw Error(where + ": option outside any [section]");
        sections.back().job.text += t + "\n";
    }
    if (sections.empty()) throw Error("job file " + path + " has no sections");
    return sections;
}

}  // namespace grundy::app
