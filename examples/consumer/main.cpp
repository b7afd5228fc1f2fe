// Links the installed libroofline and uses its public API; needs no GPU.
#include <roofline/roofline.hpp>

#include <algorithm>
#include <iostream>
#include <sstream>

int main() {
    roofline::KernelRecord a;
    a.name = "k";
    a.measured = true;
    a.timeSeconds = 1e-3;
    a.flops[static_cast<std::size_t>(roofline::FlopKind::FP32)] = 1e9;
    roofline::KernelRecord b = a;
    b.launchIndex = 1;
    std::ostringstream csv;
    roofline::writeCsv({a, b}, csv);
    { roofline::ProfileScope scope{"no session: costs one branch"}; }
    // The rows the CSV holds, its header line left out: what was written, not what was meant.
    const std::string text = csv.str();
    const long rows = static_cast<long>(std::count(text.begin(), text.end(), '\n')) - 1;
    std::cout << "consumer: libroofline " << ROOFLINE_VERSION_STRING << " linked; " << rows
              << " records written (" << text.size() << " bytes of CSV)\n";
    return 0;
}
