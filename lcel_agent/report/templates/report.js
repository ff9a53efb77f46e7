// lcel_agent report: open or close every loop, show the failed loops only; in a batch, sort
// and filter the runs table, and open a run's page (unpacking it first in a big batch).
// A run report and a small batch work without this script: loops open on click (<details>)
// and run pages show by their anchor (:target).
(function () {
  "use strict";

  // --- a run's timeline: open all, close all, failed loops only ----------------------
  function wire(root) {
    root.querySelectorAll(".timeline").forEach(function (timeline) {
      var loops = timeline.querySelectorAll("details.loop");
      timeline.querySelectorAll("[data-act]").forEach(function (control) {
        var act = control.getAttribute("data-act");
        control.addEventListener(act === "failed" ? "change" : "click", function () {
          loops.forEach(function (loop) {
            if (act === "open") { loop.open = true; }
            else if (act === "close") { loop.open = false; }
            else { loop.classList.toggle("hidden-by-filter", control.checked && !loop.classList.contains("failed")); }
          });
        });
      });
    });
  }
  wire(document);

  // --- a batch's runs table: sort by a column, filter by id or task, stop, tokens -----
  // The page holds the first rows; the data of every row is in #runs-data, and the table
  // is drawn from it, a page of rows at a time, whenever the order or the filter changes.
  var table = document.querySelector("table.runs");
  var source = document.getElementById("runs-data");
  if (table && source) {
    var body = table.tBodies[0];
    var pageSize = body.rows.length || 1;
    var columns = ["id", "task", "stop", "loops", "tokens", "s", "line"];
    var runs = JSON.parse(source.textContent).map(function (r) {
      return { id: r[0], task: r[1], stop: r[2], loops: r[3], tokens: r[4], s: r[5], line: r[6], anchor: r[7], problem: r[8] };
    });
    var numeric = { loops: true, tokens: true, s: true, line: true };
    var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
    var order = { key: "id", down: false };
    var limit = pageSize;
    var matching = runs;
    var form = document.querySelector("form.filters");
    var text = form.querySelector("[data-filter=text]");
    var stop = form.querySelector("[data-filter=stop]");
    var tokens = form.querySelector("[data-filter=tokens]");
    var shown = form.querySelector(".shown");
    var more = document.querySelector("[data-more]");
    var cell = function (row, value, css) {
      var td = row.insertCell();
      if (css) { td.className = css; }
      if (value !== null) { td.textContent = value; }
      return td;
    };
    var draw = function () {
      var fragment = document.createDocumentFragment();
      matching.slice(0, limit).forEach(function (run) {
        var row = document.createElement("tr");
        row.className = run.stop === "final" ? "ok" : "failed";
        columns.forEach(function (key) { row.dataset[key] = run[key]; });
        var first = cell(row, null);
        if (run.anchor) {
          var link = document.createElement("a");
          link.className = "run-link"; link.href = "#" + run.anchor; link.textContent = run.id;
          first.appendChild(link);
        } else { first.textContent = run.id; }
        cell(row, run.task, "task");
        var badge = document.createElement("span");
        badge.className = "stop stop-" + run.stop.toLowerCase().replace(/[^a-z0-9]/g, "-");
        badge.textContent = run.stop;
        var third = cell(row, null);
        third.appendChild(badge);
        if (run.problem) { third.appendChild(document.createTextNode(" " + run.problem)); }
        cell(row, String(run.loops), "num");
        cell(row, run.tokens.toLocaleString("en"), "num");
        cell(row, run.s.toFixed(2), "num");
        cell(row, String(run.line), "num muted");
        fragment.appendChild(row);
      });
      body.replaceChildren(fragment);
      var count = Math.min(limit, matching.length);
      shown.textContent = count + " of " + matching.length + " runs shown" +
        (matching.length < runs.length ? " (" + runs.length + " in all)" : "");
      if (more) { more.parentNode.hidden = matching.length <= limit; }
    };
    var sort = function () {
      var key = order.key;
      matching.sort(function (a, b) {
        var by = numeric[key] ? a[key] - b[key] : collator.compare(String(a[key]), String(b[key]));
        return order.down ? -by : by;
      });
    };
    var filter = function () {
      var needle = text.value.trim().toLowerCase();
      var least = Number(tokens.value) || 0;
      matching = runs.filter(function (run) {
        return (!needle || run.id.toLowerCase().indexOf(needle) >= 0 ||
                run.task.toLowerCase().indexOf(needle) >= 0) &&
               (!stop.value || run.stop === stop.value) && run.tokens >= least;
      });
      sort();
      limit = pageSize;
      draw();
    };
    table.querySelectorAll("button[data-sort]").forEach(function (button) {
      button.addEventListener("click", function () {
        var key = button.getAttribute("data-sort");
        order = { key: key, down: order.key === key ? !order.down : numeric[key] === true };
        sort();
        draw();
        table.querySelectorAll("th").forEach(function (th) { th.removeAttribute("aria-sort"); });
        button.parentNode.setAttribute("aria-sort", order.down ? "descending" : "ascending");
      });
    });
    [text, stop, tokens].forEach(function (input) { input.addEventListener("input", filter); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    if (more) { more.addEventListener("click", function () { limit += pageSize; draw(); }); }
  }

  // --- a batch's run pages: shown by their anchor; packed ones unpacked on first use ---
  var packs = {};
  document.querySelectorAll("script.runs-pack").forEach(function (script) {
    script.getAttribute("data-anchors").split(" ").forEach(function (anchor, index) {
      packs[anchor] = { script: script, index: index };
    });
  });
  var unpacked = new Map();
  function unpack(script) {
    if (!unpacked.has(script)) {
      var bytes = Uint8Array.from(atob(script.textContent.trim()), function (c) { return c.charCodeAt(0); });
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      unpacked.set(script, new Response(stream).text().then(JSON.parse));
    }
    return unpacked.get(script);
  }
  function page(anchor) {
    var found = document.getElementById(anchor);
    if (found || !packs[anchor]) { return Promise.resolve(found); }
    return unpack(packs[anchor].script).then(function (pages) {
      var holder = document.createElement("div");
      holder.innerHTML = pages[packs[anchor].index];
      var made = holder.firstElementChild;
      document.getElementById("run-pages").appendChild(made);
      wire(made);
      return made;
    });
  }
  function route() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var run = /^run-\d+/.exec(id);
    document.querySelectorAll(".run-page.current").forEach(function (p) { p.classList.remove("current"); });
    if (!run) {
      document.body.classList.remove("showing-run");
      var target = id ? document.getElementById(id) : null;
      if (target && target.tagName === "DETAILS") { target.open = true; }  // #loop-N of a run report
      return Promise.resolve();
    }
    return page(run[0]).then(function (shown) {
      if (!shown) { return; }
      shown.classList.add("current");
      document.body.classList.add("showing-run");
      var target = document.getElementById(id);
      if (target && target.tagName === "DETAILS") { target.open = true; }
      (target || shown).scrollIntoView();
    });
  }
  window.addEventListener("hashchange", route);
  route();
})();
