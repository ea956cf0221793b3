#include "app/sum_options.hpp"

#include "app/options.hpp"
#include "grundy/error.hpp"

namespace grundy::app {

WythoffPosition parse_position(const po::variables_map& v) {
    const auto xy = v.count("position") ? v["position"].as<std::vector<std::string>>()
                                        : std::vector<std::string>{};
    if (xy.size() != 2) throw Error("give a position X Y (two whole numbers) or --sum \"...\"");
    return {parse_whole_number("X", xy[0], 0, kMaxCoordinate),
            parse_whole_number("Y", xy[1], 0, kMaxCoordinate)};
}

void describe_sum_value_options(po::options_description& o) {
    // clang-format off
    o.add_options()
        ("table", po::value<std::string>(), "Wythoff values of --sum from this table (F.h5)")
        ("max-cells", po::value<std::string>()->default_value("2^26"),
         "largest Wythoff table --sum computes on the fly (cells)")
        ("threads,t", po::value<std::string>(), "threads for a table computed on the fly");
    // clang-format on
}

std::optional<WythoffValues> wythoff_values_for(const po::variables_map& v, const GameSum& sum) {
    if (v.count("table")) return WythoffValues::from_file(v["table"].as<std::string>(), sum);
    bool wythoff = false;
    for (const auto& c : sum) wythoff |= c.kind == SumComponent::Kind::Wythoff;
    if (!wythoff) return std::nullopt;
    return WythoffValues::computed(sum, count_option(v, "max-cells", 1, uint64_t{1} << 40),
                                   parse_threads(v));
}

}  // namespace grundy::app
