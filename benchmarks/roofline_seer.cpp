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

// What the command line gave, for every subcommand.
struct Args {
    std::vector<std::string> data, testData, networkFiles;
    std::string model, output, ceilings, roofs, configsFile, config, testConfigs, chart;
    bool all = false, everyRow = false, structural = false;
    std::size_t splitCount = 100;
    double testShare = 0.3;
    std::uint64_t seed = 1;
    std::size_t threads = 0;
    SampleOptions drawn;
    double maxTensorMiB = SampleOptions{}.maxTensorBytes / (1024.0 * 1024.0);
};

struct Commands {
    CLI::App* fit;
    CLI::App* evaluate;
    CLI::App* splits;
    CLI::App* predict;
    CLI::App* networks;
    CLI::App* sample;
};

void defineFitAndEvaluate(CLI::App& app, Args& a, Commands& c) {
    c.fit = app.add_subcommand("fit", "fit the model on the training split (70% of the "
                                      "configurations) and write it");
    c.fit->add_option("data", a.data, "SEER data sets (roofline-conv --seer-csv)")->required();
    c.fit->add_option("-o,--output", a.output, "the model file to write")->required();
    c.fit->add_option("--ceilings", a.ceilings,
                      "roofs from a ceilings file (roofline ceilings -o)");
    c.fit->add_option("--roofs", a.roofs,
                      "roofs: cuda=FLOP/s,tensor=FLOP/s,dram=B/s,l2=B/s (optional),sms=N");
    c.fit->add_flag("--all", a.all, "fit on every configuration (no held-out split)");
    c.fit->add_option("--test-configs", a.testConfigs,
                      "hold out these configurations (SEER's one-line format) instead of 30%");

    c.evaluate = app.add_subcommand(
        "evaluate", "Test-set-I (time error per engine) and Test-set-II (best engine per "
                    "configuration) on the held-out 30%");
    c.evaluate->add_option("data", a.data, "SEER data sets")->required();
    c.evaluate->add_option("--model", a.model, "a model from fit (default: fit one on the split)");
    c.evaluate->add_option("--ceilings", a.ceilings, "roofs from a ceilings file");
    c.evaluate->add_option("--roofs", a.roofs, "roofs: cuda=,tensor=,dram=,l2=,sms=");
    c.evaluate->add_option("--test-configs", a.testConfigs,
                           "Test-set-II as SEER wrote it: these configurations (one-line format) "
                           "are held out instead of the hash split's 30%");
    c.evaluate->add_flag("--rows", a.everyRow,
                         "also print every test row: measured and predicted time, and the time "
                         "model's on the row's measured metrics");
    c.evaluate->add_option("--chart", a.chart,
                           "FILE.html: the per-engine error table and the predicted-against-"
                           "measured scatter; FILE.svg: the scatter");
    for (auto* sub : {c.fit, c.evaluate})
        sub->add_flag("--structural", a.structural,
                      "the structural time model for every engine (no cross-validated choice)");
}

void defineSplits(CLI::App& app, Args& a, Commands& c) {
    c.splits = app.add_subcommand(
        "splits", "the model fitted and evaluated on many random held-out sets of configurations: "
                  "each figure's 10th, 50th and 90th percentile over the splits");
    c.splits->add_option("data", a.data, "SEER data sets")->required();
    c.splits->add_option("--ceilings", a.ceilings, "roofs from a ceilings file");
    c.splits->add_option("--roofs", a.roofs, "roofs: cuda=,tensor=,dram=,l2=,sms=");
    c.splits->add_option("--splits", a.splitCount, "how many random splits")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    c.splits->add_option("--test-share", a.testShare, "share of the configurations held out")
        ->check(CLI::Range(0.05, 0.95))
        ->capture_default_str();
    c.splits->add_option("--seed", a.seed, "the first split's seed (split i uses seed + i)")
        ->capture_default_str();
    c.splits
        ->add_option("--threads", a.threads,
                     "splits evaluated at once (default: one per hardware thread)")
        ->check(CLI::Range(1, 1024));
    c.splits->add_flag("--structural", a.structural,
                       "the structural time model for every engine (no cross-validated choice)");
}

void definePredictAndNetworks(CLI::App& app, Args& a, Commands& c) {
    c.predict = app.add_subcommand("predict", "predicted time per engine, best first, for "
                                              "configurations in SEER's one-line format");
    c.predict->add_option("--model", a.model, "a model from fit")->required();
    c.predict->add_option("configs", a.configsFile, "SEER configuration file");
    c.predict->add_option("--config", a.config, "one configuration: \"n c w k q r s p\"");

    c.networks = app.add_subcommand(
        "networks", "real networks' layers as Test-set-II: the model fitted on DATA (without "
                    "any configuration of the test data), each network's conv time per iteration "
                    "predicted against measured, and the picks on every layer");
    c.networks->add_option("data", a.data, "SEER data sets to fit on")->required();
    c.networks
        ->add_option("--test-data", a.testData,
                     "SEER data sets of the networks' layers (roofline-conv --preset "
                     "resnet50 ... --algo every --seer-csv)")
        ->required();
    c.networks
        ->add_option("--network", a.networkFiles,
                     "roofline-conv workload files of the networks (count column: layers "
                     "per shape), e.g. benchmarks/configs/resnet50.csv")
        ->required();
    c.networks->add_option("--ceilings", a.ceilings, "roofs from a ceilings file");
    c.networks->add_option("--roofs", a.roofs, "roofs: cuda=,tensor=,dram=,l2=,sms=");
}

void defineSample(CLI::App& app, Args& a, Commands& c) {
    c.sample = app.add_subcommand(
        "sample", "random configurations for a data set, in SEER's one-line format (sweep them "
                  "with roofline-conv FILE --algo every --seer-csv DATA)");
    c.sample->add_option("--count", a.drawn.count, "how many distinct configurations")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    c.sample->add_option("--seed", a.drawn.seed, "the random stream's seed")->capture_default_str();
    c.sample->add_option("--min-macs", a.drawn.minMacs, "smallest work (multiply-accumulates)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    c.sample->add_option("--max-macs", a.drawn.maxMacs, "largest work (multiply-accumulates)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    c.sample->add_option("--max-tensor-mib", a.maxTensorMiB, "largest tensor at 4 bytes an element")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    c.sample->add_option("-o,--output", a.output, "the file to write (default: standard output)");
}

void runSample(Args& a) {
    a.drawn.maxTensorBytes = a.maxTensorMiB * 1024.0 * 1024.0;
    if (a.drawn.minMacs > a.drawn.maxMacs)
        throw SeerError("sample: --min-macs is above --max-macs");
    std::ostringstream text;
    writeSeerConfigs(sampleConfigs(a.drawn), a.drawn, text);
    if (a.output.empty())
        std::cout << text.str();
    else
        roofline::saveChart(a.output, text.str());
}

void runNetworks(const Args& a) {
    const auto test = readAll(a.testData);
    std::set<std::string> held;
    for (const auto& r : test)
        held.insert(r.conv.key());
    std::vector<SeerRow> train;
    std::size_t dropped = 0;
    for (const auto& r : readAll(a.data))
        if (held.count(r.conv.key()))
            ++dropped;
        else
            train.push_back(r);
    if (train.empty())
        throw SeerError("networks: every configuration of the data is in the test data: "
                        "nothing is left to fit on (give the networks' layers with "
                        "--test-data and other configurations as the data)");
    if (!test.empty() && train[0].precision != test[0].precision)
        throw SeerError("networks: the test data is " + test[0].precision + ", the training data " +
                        train[0].precision);
    const Model m = Model::fit(train, roofsFrom(a.ceilings, a.roofs, train[0].precision));
    std::cerr << "fitted " << m.engines.size() << " engines on " << train.size() << " rows";
    if (dropped)
        std::cerr << " (" << dropped
                  << " rows of configurations the test data holds "
                     "left out)";
    std::cerr << '\n';
    std::vector<NetworkFigures> figures;
    for (const auto& file : a.networkFiles) {
        const auto more = evaluateNetwork(m, readNetworkLayers(readFile(file), file), test);
        figures.insert(figures.end(), more.begin(), more.end());
    }
    printNetworkFigures(figures, std::cout);
    std::cout << '\n';
    report(m, test, "", false);
}

void runSplits(const Args& a) {
    const auto rows = readAll(a.data);
    SplitsOptions o;
    o.splits = a.splitCount;
    o.testShare = a.testShare;
    o.seed = a.seed;
    o.select = !a.structural;
    o.threads = a.threads;
    printSplitsSummary(
        evaluateSplits(
            rows, roofsFrom(a.ceilings, a.roofs, rows.empty() ? "fp32" : rows[0].precision), o),
        std::cout);
}

// fit (written to --output), or evaluate on a model fitted on the split.
void runFit(const Args& a, bool write) {
    const auto rows = readAll(a.data);
    std::vector<SeerRow> train, test;
    if (a.all)
        train = rows;
    else
        split(rows, a.testConfigs, train, test);
    const Model m =
        Model::fit(train, roofsFrom(a.ceilings, a.roofs, rows.empty() ? "fp32" : rows[0].precision),
                   !a.structural);
    std::size_t logLinear = 0, boosted = 0, corrected = 0;
    for (const auto& [name, e] : m.engines) {
        logLinear += e.logLinear.empty() || !e.boosted.empty() ? 0 : 1;
        boosted += e.boosted.empty() || e.boostedCorrects ? 0 : 1;
        corrected += e.boostedCorrects ? 1 : 0;
    }
    std::cerr << "fitted " << m.engines.size() << " engines on " << train.size() << " rows ("
              << m.skipped.size() << " engines with fewer than " << Model::kMinimumRows
              << " training rows skipped; time models chosen by "
              << "cross-validation: " << corrected << " structural corrected by boosted trees, "
              << boosted << " boosted trees, " << logLinear << " log-linear, "
              << m.engines.size() - boosted - corrected - logLinear << " structural)\n";
    if (write) {
        roofline::saveChart(a.output, m.toJson() + '\n');
        std::cerr << "wrote " << a.output << '\n';
        return;
    }
    report(m, test, a.chart, a.everyRow);
}

void runPredict(const Model& m, const Args& a) {
    std::vector<ConvParams> configs;
    if (!a.config.empty())
        configs.push_back(parseSeerLine(a.config, "--config"));
    if (!a.configsFile.empty()) {
        std::istringstream in(readFile(a.configsFile));
        auto more = readSeerConfigs(in, a.configsFile);
        configs.insert(configs.end(), more.begin(), more.end());
    }
    if (configs.empty())
        throw SeerError("predict: give a configuration file or --config \"n c w k q r s p\"");
    for (const auto& c : configs) {
        const auto ranked = rankEngines(m, c);
        std::cout << c.key() << ": "
                  << (ranked.empty() ? std::string("no engine modelled") : ranked[0].first) << '\n';
        for (const auto& [engine, p] : ranked) {
            char line[256];
            std::snprintf(line, sizeof line, "  %-40.40s %10.2f us  %s-bound\n", engine.c_str(),
                          p.seconds * 1e6, p.bound.c_str());
            std::cout << line;
        }
    }
}

void run(Args& a, const Commands& c) {
    if (c.sample->parsed())
        return runSample(a);
    if (c.networks->parsed())
        return runNetworks(a);
    if (c.splits->parsed())
        return runSplits(a);
    if (c.fit->parsed() || (c.evaluate->parsed() && a.model.empty()))
        return runFit(a, c.fit->parsed());
    const Model m = Model::fromJson(readFile(a.model), a.model);
    if (c.evaluate->parsed()) {
        std::vector<SeerRow> train, test;
        split(readAll(a.data), a.testConfigs, train, test);
        report(m, test, a.chart, a.everyRow);
        return;
    }
    runPredict(m, a);
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"roofline-seer: SEER's per-engine kernel-time model, fitted on roofline-conv "
                 "data (docs/seer.md)"};
    app.require_subcommand(1);
    Args a;
    Commands c{};
    defineFitAndEvaluate(app, a, c);
    defineSplits(app, a, c);
    definePredictAndNetworks(app, a, c);
    defineSample(app, a, c);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }
    try {
        run(a, c);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "roofline-seer: " << e.what() << '\n';
        return 2;
    }
}
