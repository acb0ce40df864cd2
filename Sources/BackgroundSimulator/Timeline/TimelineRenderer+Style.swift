extension TimelineRenderer {
    /// The page's stylesheet: layout, then the colours of states, outcomes, networks, series and markers (the legend's
    /// swatches use the same classes, so they cannot disagree).
    static let stylesheet = #"""
        *{box-sizing:border-box}
        html{background:#f3f4f6}
        body{margin:0;padding:24px;color:#1f2933;
          font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
        .tl{margin:0 auto;max-width:100%;background:#fff;border:1px solid #d8dde3;border-radius:10px;
          padding:18px 20px 12px;box-shadow:0 1px 3px rgba(15,23,42,.06)}
        .tl h1{margin:0;font-size:19px;font-weight:650;overflow-wrap:anywhere}
        .tl-sub{margin:2px 0 0;color:#3e4c59;overflow-wrap:anywhere}
        .tl-meta{margin:2px 0 0;color:#7b8794;font-size:12px}
        .tl-legend{display:flex;flex-wrap:wrap;gap:6px 22px;margin:14px 0 12px;padding:8px 10px;
          background:#f8f9fb;border-radius:6px;font-size:12px;color:#3e4c59}
        .tl-legend-group{display:flex;flex-wrap:wrap;align-items:center;gap:4px 10px}
        .tl-legend-title{font-weight:600;color:#1f2933}
        .tl-key{display:inline-flex;align-items:center;gap:4px;white-space:nowrap}
        .tl-scroll{overflow:auto;max-height:80vh;border:1px solid #e4e7eb;border-radius:6px}
        .tl-grid{display:grid;width:max-content}
        .tl-grid svg{display:block;overflow:hidden}
        .tl-corner{position:sticky;top:0;left:0;z-index:3;display:flex;flex-direction:column;height:40px;
          padding:3px 0 0 10px;background:#fff;font-size:11px;line-height:16px;color:#7b8794;
          box-shadow:1px 0 0 #e4e7eb,inset 0 -1px 0 #cbd2d9}
        .tl-corner-day{font-weight:600;color:#1f2933}
        .tl-axis{position:sticky;top:0;z-index:2;background:#fff}
        .tl-labels{position:sticky;left:0;z-index:1;background:#fff;box-shadow:1px 0 0 #e4e7eb}
        .tl-foot{margin:8px 0 0;color:#7b8794;font-size:11.5px}
        .tl-tip{position:fixed;z-index:10;max-width:440px;padding:6px 9px;border-radius:6px;pointer-events:none;
          background:rgba(31,41,51,.96);color:#f5f7fa;font-size:12px;line-height:1.4;white-space:pre-line;
          overflow-wrap:anywhere;box-shadow:0 4px 14px rgba(0,0,0,.18)}
        .tl-tip .when{margin-top:3px;color:#9aa5b1;font-size:11px}
        svg text{font-size:10px;fill:#3e4c59;pointer-events:none}
        .lane-bg{fill:none}
        .hit{fill:transparent}
        .hit:hover{fill:rgba(31,41,51,.07)}
        rect[data-detail]:not(.hit):hover{stroke:#1f2933;stroke-width:1}
        .band{fill:#f5f7fa}
        .rule{stroke:#eceff3;fill:none}
        .grid-tick{stroke:#eef0f3;fill:none}
        .grid-day{stroke:#9aa5b1;stroke-dasharray:4 3;fill:none}
        .grid-fault{stroke:#e06666;stroke-dasharray:2 2;fill:none}
        .section text{font-size:12px;font-weight:600;fill:#1f2933}
        .lane-name{font-size:11px;fill:#616e7c}
        .lane-scale{font-size:9px;fill:#9aa5b1;text-anchor:end}
        .tick{fill:#52606d}
        .day{font-size:11px;font-weight:600;fill:#1f2933}
        .tick-mark{stroke:#9aa5b1}
        .day-mark{stroke:#52606d}
        .axis-line{stroke:#cbd2d9}
        .in{fill:#1f2933}
        .in.light{fill:#fff}
        .in.halo{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
        .st-notRunning{fill:#edf0f3}
        .st-active{fill:#2f7de1}
        .st-inactive{fill:#9cc3f2}
        .st-background{fill:#ee8a2d}
        .st-suspended{fill:#c9d1da}
        .st-terminated{fill:#c93c3c}
        .st-other{fill:#e3d7f3}
        .bar{stroke:rgba(15,23,42,.18);stroke-width:.5}
        .o-ended{fill:#2e9e5b}
        .o-expired{fill:#f2c14e}
        .o-leaked{fill:#d23f3f}
        .o-open{fill:url(#tl-hatch-open)}
        .o-succeeded{fill:#1b8a7e}
        .o-failed{fill:#e0762a}
        .o-killed{fill:#8e2424}
        .o-running{fill:url(#tl-hatch-running)}
        .net-wifi{fill:#8ccbf2}
        .net-cell{fill:#8b6ccf}
        .net-none{fill:url(#tl-hatch-none)}
        .net-other{fill:#b9c3cd}
        .mode-held{fill:#f2c14e}
        .xfer{stroke:rgba(15,23,42,.18);stroke-width:.5}
        .xfer-waiting{fill:url(#tl-hatch-none)}
        .xfer-running{fill:#2d8fd5}
        .xfer-completed{fill:#2e9e5b}
        .xfer-failed{fill:#d23f3f}
        .draining-area{fill:#dde5ee}
        .draining-line{stroke:#5c7a99;stroke-width:1.5;fill:none}
        .charging-area{fill:#cdeed9}
        .charging-line{stroke:#2e9e5b;stroke-width:1.5;fill:none}
        .lpm{fill:#f2c14e}
        .budget-area{fill:#fbe3cc}
        .budget-line{stroke:#e0762a;stroke-width:1.25;fill:none}
        .unlimited-area{fill:#eef1f5}
        .unlimited-line{stroke:#c3cad3;fill:none}
        .budget-limit{stroke:#9aa5b1;stroke-width:1;stroke-dasharray:3 2;fill:none}
        .mk path{stroke:currentColor;fill:currentColor;stroke-width:1.25}
        .mk:hover path{stroke-width:2.5}
        .mk-info{color:#627d98}
        .mk-warning{color:#d9730d}
        .mk-fault{color:#c93c3c}
        .mk-label-info{fill:#486581}
        .mk-label-warning{fill:#a85400}
        .mk-label-fault{fill:#b42318;font-weight:600}
        .tl-cursor{stroke:#1f2933;stroke-dasharray:2 2;pointer-events:none}

        """#

    /// Installed first, in `<head>`: counts script errors on the root element as `data-js-errors`.
    static let errorHook = #"""
        window.tlErrors = [];
        window.onerror = function (message) {
          window.tlErrors.push(String(message));
          var root = document.getElementById('timeline');
          if (root) {
            root.setAttribute('data-js-errors', String(window.tlErrors.length));
            root.setAttribute('data-js-error-messages', window.tlErrors.join(' | '));
          }
          return false;
        };

        """#

    /// The page's script: checks the layout once (every lane has a non-zero size, every lane and detail made it into
    /// the DOM) and records the result on the root element, then drives the tooltip and the cursor line.
    static let script = #"""
        (function () {
          'use strict';
          var root = document.getElementById('timeline');
          root.setAttribute('data-js-errors', String(window.tlErrors.length));
          var plot = root.querySelector('.tl-plot');
          var cursor = plot.querySelector('.tl-cursor');
          var tip = document.getElementById('tl-tip');
          var origin = Number(root.getAttribute('data-local-origin'));
          var scale = Number(root.getAttribute('data-px-per-second'));
          var duration = Number(root.getAttribute('data-duration'));
          var hidden = null;

          function checkLayout() {
            var problems = [];
            var lanes = root.querySelectorAll('[data-lane]');
            for (var i = 0; i < lanes.length; i++) {
              var box = lanes[i].getBBox();
              if (!(box.width > 0 && box.height > 0)) problems.push('empty lane ' + lanes[i].getAttribute('data-lane'));
            }
            var details = root.querySelectorAll('[data-detail]').length;
            if (String(lanes.length) !== root.getAttribute('data-expected-lanes')) problems.push(lanes.length + ' lanes');
            if (String(details) !== root.getAttribute('data-expected-details')) problems.push(details + ' details');
            root.setAttribute('data-lane-count', String(lanes.length));
            root.setAttribute('data-detail-count', String(details));
            if (problems.length) root.setAttribute('data-layout-problems', problems.join('; '));
            root.setAttribute('data-layout-ok', problems.length ? 'false' : 'true');
          }

          function two(n) { return (n < 10 ? '0' : '') + n; }
          function clock(t) {
            var local = Math.floor(origin + t);
            var day = Math.floor(local / 86400) - Math.floor(origin / 86400) + 1;
            var s = ((local % 86400) + 86400) % 86400;
            return 'day ' + day + ' ' + two(Math.floor(s / 3600)) + ':' + two(Math.floor(s / 60) % 60) + ':' + two(s % 60);
          }
          function elapsed(t) {
            var s = Math.floor(t), d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
            if (s < 60) return 't+' + s + 's';
            if (s < 3600) return 't+' + m + 'm ' + two(s % 60) + 's';
            var rest = two(m) + 'm ' + two(s % 60) + 's';
            return 't+' + (d ? d + 'd ' + two(h) : h) + 'h ' + rest;
          }
          var months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
          var weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
          var scroller = root.querySelector('.tl-scroll');
          var cornerDay = root.querySelector('.tl-corner-day');
          function showDayAtLeftEdge() {
            var t = Math.min(Math.max(scroller.scrollLeft / scale, 0), duration);
            var date = new Date(Math.floor(origin + t) * 1000);
            var day = Math.floor((origin + t) / 86400) - Math.floor(origin / 86400) + 1;
            cornerDay.textContent = 'day ' + day + ' \u00b7 ' + weekdays[date.getUTCDay()] + ' ' + date.getUTCDate() + ' ' +
              months[date.getUTCMonth()];
          }
          function restoreTitle() {
            if (hidden) { hidden.element.insertBefore(hidden.title, hidden.element.firstChild); hidden = null; }
          }
          function hide() {
            tip.hidden = true;
            cursor.setAttribute('visibility', 'hidden');
            restoreTitle();
          }
          function follow(event) {
            var target = event.target.closest ? event.target.closest('[data-detail]') : null;
            var inPlot = plot.contains(event.target);
            if (!target && !inPlot) { hide(); return; }
            if (target && (!hidden || hidden.element !== target)) {
              restoreTitle();
              var title = target.querySelector('title');
              if (title && title.parentNode === target) {
                hidden = { element: target, title: title };
                target.removeChild(title);
              }
            } else if (!target) {
              restoreTitle();
            }
            tip.textContent = target ? target.getAttribute('data-detail') : '';
            if (inPlot) {
              var x = event.clientX - plot.getBoundingClientRect().left;
              var t = Math.min(Math.max(x / scale, 0), duration);
              cursor.setAttribute('x1', x);
              cursor.setAttribute('x2', x);
              cursor.setAttribute('visibility', 'visible');
              var when = document.createElement('div');
              when.className = 'when';
              when.textContent = clock(t) + ' \u00b7 ' + elapsed(t);
              tip.appendChild(when);
            }
            tip.hidden = false;
            var left = event.clientX + 14, top = event.clientY + 16;
            if (left + tip.offsetWidth > window.innerWidth - 8) left = Math.max(8, event.clientX - tip.offsetWidth - 14);
            if (top + tip.offsetHeight > window.innerHeight - 8) top = Math.max(8, event.clientY - tip.offsetHeight - 12);
            tip.style.left = left + 'px';
            tip.style.top = top + 'px';
          }

          document.addEventListener('mousemove', follow);
          scroller.addEventListener('scroll', showDayAtLeftEdge, { passive: true });
          document.documentElement.addEventListener('mouseleave', hide);
          window.addEventListener('blur', hide);
          checkLayout();
        })();

        """#
}
