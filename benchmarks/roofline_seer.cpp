// roofline-seer: SEER's kernel-time model per cuDNN engine, fitted on roofline-conv data
// (docs/seer.md, docs/design/0012-seer-model.md).
//   roofline-seer fit DATA.csv... -o model.json (--ceilings FILE | --roofs
//   cuda=,tensor=,dram=,l2=,sms=) roofline-seer evaluate DATA.csv... (--model model.json |
//   --ceilings FILE | --roofs ...) roofline-seer predict --model model.json CONFIGS.txt | --config
//   "n c w k q r s p"
//   roofline-seer sample --count 1200 -o configs.txt
#include "seer/evaluate.hpp"
#include "seer/networks.hpp"
#include "seer/sample.hpp"
#include "seer/splits.hpp"
#include "workloads/csv_rows.hpp"

#include "core/ceilings_file.hpp"

#include <roofline/chart.hpp>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

namespace {

using namespace roofline::seer;

// A model, configuration or workload file: at most 256 MiB (a model of nine engines is ~2 MiB).
std::string readFile(const std::string& path) {
    return readDataFile(path, std::size_t{256} << 20);
}

std::vector<SeerRow> readAll(const std::vector<std::string>& paths) {
    std::vector<SeerRow> rows;
    for (const auto& p : paths) {
        auto more = readDatasetFile(p);
        rows.insert(rows.end(), more.begin(), more.end());
    }
    std::set<std::string> precisions;
    for (const auto& r : rows)
        precisions.insert(r.precision);
    if (precisions.size() > 1)
        throw SeerError("the data mixes precisions (" + std::to_string(precisions.size()) +
                        "): fit one model per precision, one data set each");
    return rows;
}

// Roofs for the data's precision from a ceilings file (roofline ceilings -o), or given directly.
Roofs roofsFrom(const std::string& ceilingsPath, const std::string& given,
                const std::string& precision) {
    Roofs r;
    if (!ceilingsPath.empty()) {
        const auto c = roofline::core::loadCeilings(ceilingsPath);
        auto rate = [&](std::string_view roof) { // by the roof names of the ceilings file
            const auto* m = c.find(roof);
            return m ? m->perSecond : 0.0;
        };
        using roofline::FlopKind;
        using roofline::toString;
        const bool half = precision == "fp16" || precision == "bf16";
        r.cudaFlopsPerSecond = rate(toString(half ? FlopKind::FP16 : FlopKind::FP32));
        r.tensorFlopsPerSecond = rate(toString(precision == "bf16"   ? FlopKind::TensorBF16
                                               : precision == "fp16" ? FlopKind::TensorFP16
                                                                     : FlopKind::TensorTF32));
        r.dramBytesPerSecond = rate(toString(roofline::MemoryLevel::DRAM));
        r.l2BytesPerSecond = rate(toString(roofline::MemoryLevel::L2));
        r.smCount = c.smCount;
    }
    for (const auto& item : roofline::workloads::split(given, ',')) {
        const auto eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const double v = eq == std::string::npos ? 0 : std::atof(item.c_str() + eq + 1);
        if (key == "cuda")
            r.cudaFlopsPerSecond = v;
        else if (key == "tensor")
            r.tensorFlopsPerSecond = v;
        else if (key == "dram")
            r.dramBytesPerSecond = v;
        else if (key == "l2")
            r.l2BytesPerSecond = v;
        else if (key == "sms")
            r.smCount = v;
        else if (!key.empty())
            throw SeerError("--roofs: unknown key '" + key + "' (cuda, tensor, dram, l2, sms)");
    }
    if (r.cudaFlopsPerSecond <= 0 || r.dramBytesPerSecond <= 0)
        throw SeerError("no roofs: give --ceilings FILE (roofline ceilings -o FILE on the GPU) or "
                        "--roofs cuda=FLOP/s,tensor=FLOP/s,dram=B/s,l2=B/s,sms=N");
    return r;
}

// The held-out side: the configurations of a SEER file when given (Test-set-II as SEER wrote
// it), else the hash split's 30%.
void split(const std::vector<SeerRow>& rows, const std::string& testConfigs,
           std::vector<SeerRow>& train, std::vector<SeerRow>& test) {
    std::set<std::string> held;
    if (!testConfigs.empty()) {
        std::istringstream in(readFile(testConfigs));
        for (const auto& c : readSeerConfigs(in, testConfigs))
            held.insert(c.key());
    }
    for (const auto& r : rows) {
        const bool isTest =
            testConfigs.empty() ? isTestConfig(r.conv) : held.count(r.conv.key()) > 0;
        (isTest ? test : train).push_back(r);
    }
    if (!testConfigs.empty() && test.empty())
        throw SeerError(testConfigs +
                        ": none of its configurations is in the data set (measure "
                        "them with roofline-conv " +
                        testConfigs + " --algo every --seer-csv ...)");
}

void report(const Model& m, const std::vector<SeerRow>& test, const std::string& chart,
            bool everyRow) {
    const RowEvaluation rows = evaluateRows(m, test);
    const ChoiceEvaluation choices = evaluateChoices(m, test);
    if (everyRow)
        printRows(rows, std::cout);
    printRowEvaluation(rows, std::cout);
    printChoiceEvaluation(choices, std::cout);
    if (chart.empty())
        return;
    const bool html = chart.size() >= 5 && chart.substr(chart.size() - 5) == ".html";
    roofline::saveChart(chart, html ? evaluationHtml(rows, choices, "SEER model: evaluation")
                                    : scatterOf(rows, "SEER model: predicted against measured"));
    std::cout << "wrote " << chart << '\n';
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"roofline-seer: SEER's per-engine kernel-time model, fitted on roofline-conv "
                 "data (docs/seer.md)"};
    app.require_subcommand(1);
    std::vector<std::string> data;
    std::string model, output, ceilings, roofs, configsFile, config, testConfigs, chart;
    bool all = false, everyRow = false;

    auto* fit = app.add_subcommand("fit", "fit the model on the training split (70% of the "
                                          "configurations) and write it");
    fit->add_option("data", data, "SEER data sets (roofline-conv --seer-csv)")->required();
    fit->add_option("-o,--output", output, "the model file to write")->required();
    fit->add_option("--ceilings", ceilings, "roofs from a ceilings file (roofline ceilings -o)");
    fit->add_option("--roofs", roofs,
                    "roofs: cuda=FLOP/s,tensor=FLOP/s,dram=B/s,l2=B/s (optional),sms=N");
    fit->add_flag("--all", all, "fit on every configuration (no held-out split)");
    fit->add_option("--test-configs", testConfigs,
                    "hold out these configurations (SEER's one-line format) instead of 30%");

    auto* evaluate = app.add_subcommand(
        "evaluate", "Test-set-I (time error per engine) and Test-set-II (best engine per "
                    "configuration) on the held-out 30%");
    evaluate->add_option("data", data, "SEER data sets")->required();
    evaluate->add_option("--model", model, "a model from fit (default: fit one on the split)");
    evaluate->add_option("--ceilings", ceilings, "roofs from a ceilings file");
    evaluate->add_option("--roofs", roofs, "roofs: cuda=,tensor=,dram=,l2=,sms=");
    evaluate->add_option("--test-configs", testConfigs,
                         "Test-set-II as SEER wrote it: these configurations (one-line format) "
                         "are held out instead of the hash split's 30%");
    evaluate->add_flag("--rows", everyRow,
                       "also print every test row: measured and predicted time, and the time "
                       "model's on the row's measured metrics");
    evaluate->add_option("--chart", chart,
                         "FILE.html: the per-engine error table and the predicted-against-"
                         "measured scatter; FILE.svg: the scatter");

    bool structural = false;
    for (auto* sub : {fit, evaluate})
        sub->add_flag("--structural", structural,
                      "the structural time model for every engine (no cross-validated choice)");

    auto* splits = app.add_subcommand(
        "splits", "the model fitted and evaluated on many random held-out sets of configurations: "
                  "each figure's 10th, 50th and 90th percentile over the splits");
    std::size_t splitCount = 100;
    double testShare = 0.3;
    std::uint64_t seed = 1;
    splits->add_option("data", data, "SEER data sets")->required();
    splits->add_option("--ceilings", ceilings, "roofs from a ceilings file");
    splits->add_option("--roofs", roofs, "roofs: cuda=,tensor=,dram=,l2=,sms=");
    splits->add_option("--splits", splitCount, "how many random splits")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    splits->add_option("--test-share", testShare, "share of the configurations held out")
        ->check(CLI::Range(0.05, 0.95))
        ->capture_default_str();
    splits->add_option("--seed", seed, "the first split's seed (split i uses seed + i)")
        ->capture_default_str();
    std::size_t threads = 0;
    splits
        ->add_option("--threads", threads,
                     "splits evaluated at once (default: one per hardware thread)")
        ->check(CLI::Range(1, 1024));
    splits->add_flag("--structural", structural,
                     "the structural time model for every engine (no cross-validated choice)");

    auto* predict = app.add_subcommand("predict", "predicted time per engine, best first, for "
                                                  "configurations in SEER's one-line format");
    predict->add_option("--model", model, "a model from fit")->required();
    predict->add_option("configs", configsFile, "SEER configuration file");
    predict->add_option("--config", config, "one configuration: \"n c w k q r s p\"");

    auto* networks = app.add_subcommand(
        "networks", "real networks' layers as Test-set-II: the model fitted on DATA (without "
                    "any configuration of the test data), each network's conv time per iteration "
                    "predicted against measured, and the picks on every layer");
    std::vector<std::string> testData, networkFiles;
    networks->add_option("data", data, "SEER data sets to fit on")->required();
    networks
        ->add_option("--test-data", testData,
                     "SEER data sets of the networks' layers (roofline-conv --preset "
                     "resnet50 ... --algo every --seer-csv)")
        ->required();
    networks
        ->add_option("--network", networkFiles,
                     "roofline-conv workload files of the networks (count column: layers "
                     "per shape), e.g. benchmarks/configs/resnet50.csv")
        ->required();
    networks->add_option("--ceilings", ceilings, "roofs from a ceilings file");
    networks->add_option("--roofs", roofs, "roofs: cuda=,tensor=,dram=,l2=,sms=");

    auto* sample = app.add_subcommand(
        "sample", "random configurations for a data set, in SEER's one-line format (sweep them "
                  "with roofline-conv FILE --algo every --seer-csv DATA)");
    SampleOptions drawn;
    double maxTensorMiB = drawn.maxTensorBytes / (1024.0 * 1024.0);
    sample->add_option("--count", drawn.count, "how many distinct configurations")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    sample->add_option("--seed", drawn.seed, "the random stream's seed")->capture_default_str();
    sample->add_option("--min-macs", drawn.minMacs, "smallest work (multiply-accumulates)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sample->add_option("--max-macs", drawn.maxMacs, "largest work (multiply-accumulates)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sample->add_option("--max-tensor-mib", maxTensorMiB, "largest tensor at 4 bytes an element")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    sample->add_option("-o,--output", output, "the file to write (default: standard output)");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    try {
        if (sample->parsed()) {
            drawn.maxTensorBytes = maxTensorMiB * 1024.0 * 1024.0;
            if (drawn.minMacs > drawn.maxMacs)
                throw SeerError("sample: --min-macs is above --max-macs");
            std::ostringstream text;
            writeSeerConfigs(sampleConfigs(drawn), drawn, text);
            if (output.empty())
                std::cout << text.str();
            else
                roofline::saveChart(output, text.str());
            return 0;
        }
        if (networks->parsed()) {
            const auto test = readAll(testData);
            std::set<std::string> held;
            for (const auto& r : test)
                held.insert(r.conv.key());
            std::vector<SeerRow> train;
            std::size_t dropped = 0;
            for (const auto& r : readAll(data))
                if (held.count(r.conv.key()))
                    ++dropped;
                else
                    train.push_back(r);
            if (train.empty())
                throw SeerError("networks: every configuration of the data is in the test data: "
                                "nothing is left to fit on (give the networks' layers with "
                                "--test-data and other configurations as the data)");
            if (!test.empty() && train[0].precision != test[0].precision)
                throw SeerError("networks: the test data is " + test[0].precision +
                                ", the training data " + train[0].precision);
            const Model m = Model::fit(train, roofsFrom(ceilings, roofs, train[0].precision));
            std::cerr << "fitted " << m.engines.size() << " engines on " << train.size() << " rows";
            if (dropped)
                std::cerr << " (" << dropped
                          << " rows of configurations the test data holds "
                             "left out)";
            std::cerr << '\n';
            std::vector<NetworkFigures> figures;
            for (const auto& file : networkFiles) {
                const auto more = evaluateNetwork(m, readNetworkLayers(readFile(file), file), test);
                figures.insert(figures.end(), more.begin(), more.end());
            }
            printNetworkFigures(figures, std::cout);
            std::cout << '\n';
            report(m, test, "", false);
            return 0;
        }
        if (splits->parsed()) {
            const auto rows = readAll(data);
            SplitsOptions o;
            o.splits = splitCount;
            o.testShare = testShare;
            o.seed = seed;
            o.select = !structural;
            o.threads = threads;
            printSplitsSummary(
                evaluateSplits(
                    rows, roofsFrom(ceilings, roofs, rows.empty() ? "fp32" : rows[0].precision), o),
                std::cout);
            return 0;
        }
        if (fit->parsed() || (evaluate->parsed() && model.empty())) {
            const auto rows = readAll(data);
            std::vector<SeerRow> train, test;
            if (all)
                train = rows;
            else
                split(rows, testConfigs, train, test);
            const Model m = Model::fit(
                train, roofsFrom(ceilings, roofs, rows.empty() ? "fp32" : rows[0].precision),
                !structural);
            std::size_t logLinear = 0, boosted = 0, corrected = 0;
            for (const auto& [name, e] : m.engines) {
                logLinear += e.logLinear.empty() || !e.boosted.empty() ? 0 : 1;
                boosted += e.boosted.empty() || e.boostedCorrects ? 0 : 1;
                corrected += e.boostedCorrects ? 1 : 0;
            }
            std::cerr << "fitted " << m.engines.size() << " engines on " << train.size()
                      << " rows (" << m.skipped.size() << " engines with fewer than "
                      << Model::kMinimumRows << " training rows skipped; time models chosen by "
                      << "cross-validation: " << corrected
                      << " structural corrected by boosted trees, " << boosted << " boosted trees, "
                      << logLinear << " log-linear, "
                      << m.engines.size() - boosted - corrected - logLinear << " structural)\n";
            if (fit->parsed()) {
                roofline::saveChart(output, m.toJson() + '\n');
                std::cerr << "wrote " << output << '\n';
                return 0;
            }
            report(m, test, chart, everyRow);
            return 0;
        }
        const Model m = Model::fromJson(readFile(model), model);
        if (evaluate->parsed()) {
            std::vector<SeerRow> train, test;
            split(readAll(data), testConfigs, train, test);
            report(m, test, chart, everyRow);
            return 0;
        }
        std::vector<ConvParams> configs;
        if (!config.empty())
            configs.push_back(parseSeerLine(config, "--config"));
        if (!configsFile.empty()) {
            std::istringstream in(readFile(configsFile));
            auto more = readSeerConfigs(in, configsFile);
            configs.insert(configs.end(), more.begin(), more.end());
        }
        if (configs.empty())
            throw SeerError("predict: give a configuration file or --config \"n c w k q r s p\"");
        for (const auto& c : configs) {
            const auto ranked = rankEngines(m, c);
            std::cout << c.key() << ": "
                      << (ranked.empty() ? std::string("no engine modelled") : ranked[0].first)
                      << '\n';
            for (const auto& [engine, p] : ranked) {
                char line[256];
                std::snprintf(line, sizeof line, "  %-40.40s %10.2f us  %s-bound\n", engine.c_str(),
                              p.seconds * 1e6, p.bound.c_str());
                std::cout << line;
            }
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "roofline-seer: " << e.what() << '\n';
        return 2;
    }
}
