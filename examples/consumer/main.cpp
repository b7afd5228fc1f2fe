// Links the installed libroofline and uses its public API; needs no GPU.
#include <roofline/roofline.hpp>

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
    std::cout << "consumer: libroofline " << ROOFLINE_VERSION_STRING
              << " linked; 2 records written (" << csv.str().size() << " bytes of CSV)\n";
    return 0;
}
