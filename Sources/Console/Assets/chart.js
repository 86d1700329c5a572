// Inline SVG charts made by the page: rates with intervals, and grouped bars.
"use strict";
(function () {
  const JC = (window.JC = window.JC || {});
  const NS = "http://www.w3.org/2000/svg";

  function svg(tag, attributes, ...children) {
    const element = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attributes || {})) element.setAttribute(name, String(value));
    for (const child of children) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return element;
  }

  JC.chart = {
    /** Rates with intervals: rows of {label, rate, low, high, control}; one row each, 0–100 %. */
    intervals(rows, title) {
      const width = 520, left = 130, right = 20, rowHeight = 28, top = 24;
      const height = top + rows.length * rowHeight + 26;
      const max = Math.min(1, Math.max(0.05, ...rows.map((r) => r.high)) * 1.1);
      const x = (value) => left + (Math.max(0, Math.min(max, value)) / max) * (width - left - right);
      const root = svg("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
      root.append(svg("title", {}, title));
      rows.forEach((row, index) => {
        const y = top + index * rowHeight + rowHeight / 2;
        const group = svg("g", { class: row.control ? "control" : "variation" });
        group.append(svg("text", { x: 4, y: y + 4 }, row.label + (row.control ? " (control)" : "")));
        group.append(svg("line", { class: "interval", x1: x(row.low), x2: x(row.high), y1: y, y2: y }));
        group.append(svg("circle", { class: "point", cx: x(row.rate), cy: y, r: 5 }));
        group.append(svg("text", { x: Math.min(x(row.high) + 6, width - 48), y: y - 8 }, (row.rate * 100).toFixed(1) + "%"));
        root.append(group);
      });
      const axisY = top + rows.length * rowHeight + 4;
      root.append(svg("line", { class: "axis", x1: left, x2: width - right, y1: axisY, y2: axisY }));
      for (const tick of [0, 0.5, 1]) root.append(svg("text", { x: x(tick * max) - 10, y: axisY + 16 }, Math.round(tick * max * 100) + "%"));
      return root;
    },

    /** Grouped bars: groups (x labels), series names, values[series][group]. */
    bars(groups, series, values, title) {
      // Step names are written upright under their bars, so that long ones never overlap.
      const width = Math.max(360, 60 + groups.length * (series.length * 18 + 24)), height = 280, bottom = 130, top = 24, left = 30;
      const max = Math.max(1, ...values.flat());
      const groupWidth = (width - left - 10) / Math.max(1, groups.length);
      const barWidth = Math.min(18, (groupWidth - 12) / Math.max(1, series.length));
      const root = svg("svg", { class: "chart", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
      root.append(svg("title", {}, title));
      groups.forEach((group, g) => {
        series.forEach((name, s) => {
          const value = values[s][g] || 0;
          const barHeight = (value / max) * (height - top - bottom);
          const x = left + g * groupWidth + 6 + s * barWidth;
          root.append(svg("rect", { class: "bar v" + (s % 4), x, y: height - bottom - barHeight, width: barWidth - 2, height: barHeight }, svg("title", {}, `${name}, ${group}: ${value}`)));
        });
        const labelX = left + g * groupWidth + groupWidth / 2, labelY = height - bottom + 12;
        const label = group.replace(/_/g, " ");
        root.append(svg("text", { class: "step-label", x: labelX, y: labelY, "text-anchor": "end", "dominant-baseline": "middle", transform: `rotate(-90 ${labelX} ${labelY})` }, label.length > 20 ? label.slice(0, 19) + "…" : label, svg("title", {}, group)));
      });
      series.forEach((name, s) => {
        root.append(svg("rect", { class: "bar v" + (s % 4), x: left + s * 120, y: 6, width: 10, height: 10 }));
        root.append(svg("text", { x: left + s * 120 + 14, y: 15 }, name));
      });
      root.append(svg("line", { class: "axis", x1: left, x2: width - 10, y1: height - bottom, y2: height - bottom }));
      root.append(svg("text", { x: 2, y: top + 4 }, String(max)));
      return root;
    },
  };
})();
