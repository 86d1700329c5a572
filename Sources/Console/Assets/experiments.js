// The Experiments page: each experiment's variations, weights, exposures and results (rates with
// 95% intervals drawn beside the numbers), and the onboarding funnel per variant.
"use strict";
(function () {
  const JC = window.JC;

  /** A 95% interval of a rate (Wilson score), for the chart. */
  function wilson(conversions, users) {
    if (!users) return [0, 0];
    const z = 1.96, p = conversions / users, n = users;
    const centre = (p + (z * z) / (2 * n)) / (1 + (z * z) / n);
    const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n);
    return [Math.max(0, centre - half), Math.min(1, centre + half)];
  }

  /** An absolute difference of rates, in percentage points, with its interval and p-value. */
  function absolute(e) {
    if (!e) return "–";
    return JC.points(e.estimate) + " [" + JC.points(e.ci_lower) + ", " + JC.points(e.ci_upper) + "], " + JC.pValue(e.p_value);
  }

  /** A relative difference with its interval; a rate cannot fall by more than 100%, so the
   *  interval is clipped there and says so. */
  function relative(e) {
    if (!e) return "–";
    const clipped = e.ci_lower < -1;
    return JC.el("span", {}, JC.percent(e.estimate) + " [" + (clipped ? "−100.0%*" : JC.percent(e.ci_lower)) + ", " + JC.percent(e.ci_upper) + "]", clipped ? JC.el("span", { class: "hint", title: "The interval's lower end (" + JC.percent(e.ci_lower) + ") is below −100%, which a rate cannot reach: too few users to say more." }, " *too few users for a lower bound") : null);
  }

  /** A metric in words: "first-time completion: action_completed (first time) within 14 days". */
  function metricWords(metric) {
    const name = metric.key.replace(/[_-]+/g, " ");
    const within = String(metric.within).replace(/^(\d+)d$/, (_, n) => n + (n === "1" ? " day" : " days")).replace(/^(\d+)h$/, (_, n) => n + (n === "1" ? " hour" : " hours"));
    const event = metric.event.replace(/_/g, " ");
    return name + (metric.guardrail ? " (guardrail)" : "") + ": users with a “" + event + "” event" + (metric.where ? " that matches a condition" : "") + " within " + within + " of first seeing the experiment";
  }

  function metricView(metric, control) {
    const rows = metric.variations.map((v) => {
      const [low, high] = wilson(v.conversions, v.users);
      return { label: v.variation, rate: v.rate || 0, low, high, control: v.variation === control };
    });
    const title = metricWords(metric);
    return JC.el(
      "div",
      { class: "metric" },
      JC.el("h4", { title: metric.event + (metric.where ? " where " + metric.where : "") + " within " + metric.within }, title),
      metric.users_with_open_window > 0 ? JC.message("warning", metric.users_with_open_window + " users saw the experiment less than " + metric.within + " ago: their windows are still open, so their rate can still rise.") : null,
      JC.el(
        "div",
        { class: "side" },
        JC.chart.intervals(rows, "Conversion rate per variation with its 95% interval: " + metric.key),
        JC.table(
          ["Variation", "Users", "Converted", "Rate", "Difference vs control (pp)", "Relative change"],
          metric.variations.map((v) => [
            v.variation === control ? v.variation + (v.variation === "control" ? "" : " (control)") : v.variation,
            { text: String(v.users), class: "number" },
            { text: String(v.conversions), class: "number" },
            JC.percent(v.rate),
            v.unavailable ? JC.el("span", { title: v.unavailable.code }, JC.plain(v.unavailable.message)) : v.variation === control ? "–" : absolute(v.absolute),
            v.unavailable || v.variation === control ? "–" : relative(v.relative),
          ])
        )
      )
    );
  }

  async function openReport(key, button) {
    await JC.busy(button, "experiment-report", "open the report of " + key, async () => {
      const report = (await JC.api("GET", "/v1/experiments/" + encodeURIComponent(key) + "/report")).data;
      const control = report.variations.length ? report.variations[0].variation : null;
      const srm = report.sample_ratio;
      const warnings = [];
      if (srm.status === "mismatch" || (srm.status !== "ok" && srm.status !== "not_enough_traffic")) {
        warnings.push(JC.message("warning", "Sample ratio mismatch: the users are not split by the weights (" + JC.pValue(srm.p_value) + "). Do not trust the results until an engineer checks the assignment.", srm));
      } else if (srm.status === "not_enough_traffic") {
        warnings.push(JC.message("warning", "Not enough users yet to check the split (at least " + srm.minimum_users + " per variation).", srm));
      }
      if (report.multiple_exposures.users > 0) warnings.push(JC.message("warning", report.multiple_exposures.users + " users saw more than one variation" + (report.multiple_exposures.excluded ? " and are left out." : ".")));
      JC.show(
        "experiment-report",
        JC.el("h3", { id: "report-title", tabindex: "-1" }, "Results of " + key),
        JC.el("p", {}, report.exposed_users + " users exposed (as of " + JC.time(report.as_of) + ")."),
        JC.table(["Variation", "Weight", "Users"], report.variations.map((v) => [v.variation === control && v.variation !== "control" ? v.variation + " (control)" : v.variation, JC.percent(v.weight), { text: String(v.users), class: "number" }])),
        warnings,
        report.metric_results.map((metric) => metricView(metric, control)),
        JC.el("details", {}, JC.el("summary", {}, "The whole report"), JC.el("pre", {}, JSON.stringify(report, null, 2)))
      );
      document.getElementById("report-title").focus();
    });
  }

  async function funnel() {
    const data = (await JC.api("GET", "/v1/funnels/onboarding?by_variant=true")).data;
    JC.show(
      "funnel",
      data.funnels.map((flow) => {
        const steps = [];
        for (const variant of flow.variants) for (const step of variant.steps) if (!steps.includes(step.step_id)) steps.push(step.step_id);
        const values = flow.variants.map((variant) => steps.map((id) => (variant.steps.find((s) => s.step_id === id) || { reached: 0 }).reached));
        return JC.el(
          "div",
          {},
          JC.el("h4", {}, flow.key),
          JC.el(
            "div",
            { class: "side" },
            JC.chart.bars(steps, flow.variants.map((v) => v.variant), values, "Users reaching each step of " + flow.key + " per variant"),
            JC.table(["Variant", "Started", "Finished"].concat(steps.map((s) => s.replace(/_/g, " "))), flow.variants.map((v, i) => [v.variant, String(v.started), String(v.finished)].concat(values[i].map(String))))
          )
        );
      })
    );
  }

  function srmTag(srm) {
    if (srm.status === "mismatch") return JC.el("span", { class: "tag bad", title: "p = " + srm.p_value.toPrecision(3) }, "split is off");
    if (srm.status === "ok") return JC.el("span", { class: "tag good" }, "split ok");
    return JC.el("span", { class: "tag" }, "too few users");
  }

  JC.pages.experiments = {
    async load(revision) {
      const data = await JC.served("/v1/experiments", revision);
      const list = data.experiments;
      JC.show(
        "experiments-body",
        list.length === 0
          ? JC.el("p", {}, "No experiment in the active revision.")
          : JC.table(
              ["Experiment", "Status", "Variations: weight, users", "Coverage", "Exposed", "Split", "Used by", ""],
              list.map((e) => [
                JC.el("span", { title: e.description || "" }, e.key),
                e.status + (e.winner ? " (" + e.winner + " for everyone)" : ""),
                JC.el("ul", { class: "plain" }, e.variations.map((v, i) => JC.el("li", {}, v.name + (i === 0 ? " (control)" : "") + ": " + JC.percent(v.weight) + ", " + v.users))),
                JC.percent(e.coverage),
                { text: String(e.exposed_users), class: "number" },
                srmTag(e.sample_ratio),
                e.used_by.join(", ") || "a flow, or nothing yet",
                JC.el(
                  "span",
                  {},
                  JC.el("button", { type: "button", class: "secondary", "data-experiment": e.key, onclick: (event) => openReport(e.key, event.target) }, "Open results"),
                  " ",
                  JC.el("button", { type: "button", class: "secondary", "data-change": e.key, onclick: () => JC.experimentForm(e) }, "Change")
                ),
              ])
            ),
        JC.el("button", { type: "button", class: "secondary", id: "experiment-new", onclick: () => JC.newExperimentForm() }, "New experiment")
      );
      await funnel();
    },
  };
})();
