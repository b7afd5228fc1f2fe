// Run inside a chart page by a real browser (test/browser/chart_check.sh): lays every SVG out
// and checks what a reader sees -- every text inside its chart, the kernels' number labels
// clear of each other, of the roof labels and of the legend, the legend's lines clear of each
// other, every kernel marker inside the plot. Writes the verdict into a pre element, id chart-check.
(function () {
  const problems = [];
  const overlap = (a, b) =>
    a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 &&
    a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5;
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.left, y: r.top, width: r.width, height: r.height };
  };
  const describe = (el) => (el.getAttribute('class') || el.tagName) + ' "' +
    (el.textContent || '').trim().slice(0, 40) + '"';
  let texts = 0, labels = 0, markers = 0;
  document.querySelectorAll('svg').forEach((svg, n) => {
    const canvas = box(svg);
    svg.querySelectorAll('text').forEach((t) => {
      if (!t.textContent.trim()) return;
      ++texts;
      const b = box(t);
      if (b.x < canvas.x - 1 || b.y < canvas.y - 1 || b.x + b.width > canvas.x + canvas.width + 1 ||
          b.y + b.height > canvas.y + canvas.height + 1)
        problems.push('svg ' + n + ': ' + describe(t) + ' leaves the chart');
    });
    const numbers = [...svg.querySelectorAll('text.label')];
    const others = [...svg.querySelectorAll('text.roof-label, text.legend-kernel, text.legend-bound')];
    labels += numbers.length;
    numbers.forEach((a, i) => {
      const ba = box(a);
      numbers.slice(i + 1).forEach((b) => {
        if (overlap(ba, box(b))) problems.push('svg ' + n + ': labels ' + describe(a) + ' and ' + describe(b) + ' overlap');
      });
      others.forEach((o) => {
        if (overlap(ba, box(o))) problems.push('svg ' + n + ': label ' + describe(a) + ' covers ' + describe(o));
      });
    });
    const legend = [...svg.querySelectorAll('text.legend-kernel, text.legend-bound')];
    legend.forEach((a, i) => legend.slice(i + 1).forEach((b) => {
      if (overlap(box(a), box(b))) problems.push('svg ' + n + ': legend lines ' + describe(a) + ' and ' + describe(b) + ' overlap');
    }));
    const plot = svg.querySelector('clipPath rect'); // the plot area, in the chart's units
    if (plot) {
      const scale = canvas.width / (svg.viewBox.baseVal.width || canvas.width);
      const p = { x: canvas.x + scale * +plot.getAttribute('x'), y: canvas.y + scale * +plot.getAttribute('y'),
                  width: scale * +plot.getAttribute('width'), height: scale * +plot.getAttribute('height') };
      svg.querySelectorAll('g.kernel .pt').forEach((m) => {
        ++markers;
        const b = box(m);
        const cx = b.x + b.width / 2, cy = b.y + b.height / 2;
        if (cx < p.x - 1 || cx > p.x + p.width + 1 || cy < p.y - 1 || cy > p.y + p.height + 1)
          problems.push('svg ' + n + ': a marker of ' + describe(m.closest('g.kernel')) + ' is outside the plot');
      });
    }
  });
  const out = document.createElement('pre');
  out.id = 'chart-check';
  out.textContent = 'chart-check: ' + document.querySelectorAll('svg').length + ' charts, ' +
    texts + ' texts, ' + labels + ' number labels, ' + markers + ' markers, ' +
    problems.length + ' problems\n' + problems.join('\n');
  document.body.appendChild(out);
})();
