#include "app/command.hpp"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <sstream>

#include "grundy/error.hpp"

namespace grundy::app {
namespace {

std::vector<Command>& registry() {
    static std::vector<Command> all;
    return all;
}

// Boost.Program_options builds its messages by replacing placeholders such as
// %canonical_option% until none is left, so an argument that itself holds one (say
// "--x%canonical_option%") makes the message loop for ever. No option or value of grundy's needs
// such text: it is refused before Boost sees it.
void refuse_placeholders(const std::string& text, const std::string& where) {
    for (size_t open = text.find('%'); open != std::string::npos; open = text.find('%', open + 1)) {
        size_t end = open + 1;
        while (end < text.size() &&
               (std::islower(static_cast<unsigned char>(text[end])) || text[end] == '_'))
            ++end;
        if (end > open + 1 && end < text.size() && text[end] == '%')
            throw Error(where + "'" + text.substr(open, end + 1 - open) +
                        "' is not accepted in options (text of the form %name% is reserved)");
    }
}

}  // namespace

CommandRegistrar::CommandRegistrar(const Command& command) {
    auto& all = registry();
    all.push_back(command);
    std::sort(all.begin(), all.end(),
              [](const Command& a, const Command& b) { return a.order < b.order; });
}

const std::vector<Command>& commands() {
    return registry();
}

const Command* find_command(const std::string& name) {
    for (const auto& c : registry())
        if (name == c.name) return &c;
    return nullptr;
}

// "grundy NAME --option value ...": the options given (not their defaults), in name order.
std::string command_line(const Command& command, const po::variables_map& values) {
    std::string line = std::string("grundy ") + command.name;
    for (const auto& [name, value] : values) {
        if (value.defaulted()) continue;
        const boost::any& v = value.value();
        if (const bool* on = boost::any_cast<bool>(&v)) {
            if (*on) line += " --" + name;
        } else if (const std::string* text = boost::any_cast<std::string>(&v)) {
            line += " --" + name + " " + *text;
        } else if (const auto* list = boost::any_cast<std::vector<std::string>>(&v)) {
            for (const std::string& item : *list) line += " --" + name + " " + item;
        }
    }
    return line;
}

bool parse_command_options(const Command& command, const Args& args, const JobSection* job,
                           po::variables_map& values) {
    po::options_description options(std::string("Options of grundy ") + command.name);
    std::vector<std::string> positional_names;
    command.describe(options, positional_names);
    options.add_options()("help,h", "show this help");
    po::positional_options_description positional;
    for (size_t i = 0; i < positional_names.size(); ++i)
        positional.add(positional_names[i].c_str(), i + 1 == positional_names.size() ? -1 : 1);

    for (const std::string& arg : args) refuse_placeholders(arg, "");
    if (job) refuse_placeholders(job->text, job->origin + ": ");
    try {
        po::command_line_parser parser(args);
        parser.options(options)
            .positional(positional)
            .style(po::command_line_style::unix_style ^ po::command_line_style::allow_guessing);
        po::store(parser.run(), values);
        if (values.count("help")) {
            std::cout << "Usage: grundy " << command.name << " " << command.usage << "\n\n"
                      << command.about << "\n\n"
                      << options << std::flush;
            return false;
        }
        if (job) {
            std::istringstream in(job->text);
            try {
                po::store(po::parse_config_file(in, options), values);
            } catch (const po::error& e) {
                throw Error(job->origin + ": " + e.what());
            }
        }
        po::notify(values);
    } catch (const po::unknown_option& e) {
        // "-5" reaches the parser as an option; say what it really is.
        const std::string token = e.get_option_name();
        if (token.size() > 1 && token[0] == '-' && token[1] >= '0' && token[1] <= '9')
            throw Error("'" + token + "' is negative: numbers must be whole numbers from 0 up");
        throw Error(e.what());
    } catch (const po::error& e) {
        throw Error(e.what());
    }
    return true;
}

int run_command(const Command& command, const Args& args, const JobSection* job,
                const Context& context, bool parse_only) {
    po::variables_map values;
    if (!parse_command_options(command, args, job, values)) return 0;
    if (parse_only) {
        std::cout << command_line(command, values) << std::endl;
        return 0;
    }
    return command.run(values, context);
}

}  // namespace grundy::app
