// lcel_agent run report: open or close every loop, and show the failed loops only.
// The page works without this script: each loop opens on click by itself (<details>).
(function () {
  "use strict";
  document.querySelectorAll(".timeline").forEach(function (timeline) {
    var loops = timeline.querySelectorAll("details.loop");
    timeline.querySelectorAll("[data-act]").forEach(function (control) {
      var act = control.getAttribute("data-act");
      var event = act === "failed" ? "change" : "click";
      control.addEventListener(event, function () {
        loops.forEach(function (loop) {
          if (act === "open") { loop.open = true; }
          else if (act === "close") { loop.open = false; }
          else { loop.classList.toggle("hidden-by-filter", control.checked && !loop.classList.contains("failed")); }
        });
      });
    });
  });
  // A link to #loop-N (or #run-K-loop-N) opens that loop.
  function openTarget() {
    var id = decodeURIComponent(window.location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (target && target.tagName === "DETAILS") { target.open = true; }
  }
  window.addEventListener("hashchange", openTarget);
  openTarget();
})();
