// Site search from disk. Opened as file://, Chromium refuses `new Worker(...)`, so the
// theme's search worker never starts ("Initializing search" forever). Here the worker's
// script runs in a hidden same-origin iframe instead, and messages are passed by hand.
// It covers what the search worker uses: postMessage both ways, message listeners,
// terminate. Served over http(s) this file does nothing.
(function () {
  "use strict";
  if (window.location.protocol !== "file:") {
    return;
  }

  class FileWorker extends EventTarget {
    constructor(url) {
      super();
      this.onmessage = null;
      this.onerror = null;
      this._queue = [];
      this._scope = null;
      this._frame = document.createElement("iframe");
      this._frame.hidden = true;
      this._frame.srcdoc = "<!DOCTYPE html><title>worker</title>";
      this._frame.addEventListener("load", () => this._start(new URL(url, window.location.href).href));
      (document.body || document.documentElement).appendChild(this._frame);
    }

    _start(src) {
      const scope = this._frame.contentWindow;
      // The worker calls the global postMessage to answer: hand that to our listeners.
      scope.postMessage = (data) => window.setTimeout(() => this._deliver(data));
      const script = scope.document.createElement("script");
      script.addEventListener("load", () => {
        this._scope = scope;
        this._queue.splice(0).forEach((data) => this.postMessage(data));
      });
      script.addEventListener("error", () => {
        const event = new Event("error");
        if (typeof this.onerror === "function") {
          this.onerror(event);
        }
        this.dispatchEvent(event);
      });
      script.src = src;
      scope.document.head.appendChild(script);
    }

    _deliver(data) {
      const event = new MessageEvent("message", { data: data });
      if (typeof this.onmessage === "function") {
        this.onmessage(event);
      }
      this.dispatchEvent(event);
    }

    postMessage(data) {
      const scope = this._scope;
      if (scope === null) {
        this._queue.push(data);
        return;
      }
      window.setTimeout(() => scope.dispatchEvent(new scope.MessageEvent("message", { data: data })));
    }

    terminate() {
      this._frame.remove();
      this._scope = null;
    }
  }

  window.Worker = FileWorker;
})();
