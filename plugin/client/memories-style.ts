// The Memories page's look, on top of the settings panel's (.dshDream): the host's colour tokens
// where DSH defines them, plain fallbacks where it does not.
import * as React from "react";

const h = React.createElement;

const SECONDARY = "var(--dsw-alias-label-secondary,#6e6e73)";
const SEPARATOR = "var(--dsw-alias-separator,#d9d9de)";
const FILL = "var(--dsw-alias-fill-secondary,#f2f2f7)";
const ERROR = "var(--dsw-alias-state-error-primary,#c4271e)";
const WARN_FILL = "var(--dsw-alias-state-warning-secondary,#fff4e0)";

// The settings panel's rules are restated for this page alone: the host shows one section at a time.
const CSS = `
.dshDreamMem{font:14px/1.5 system-ui,-apple-system,"Segoe UI","Microsoft YaHei","WenQuanYi Micro Hei",sans-serif;color:var(--dsw-alias-label-primary,#1d1d1f);max-width:760px;padding:4px 0}
.dshDreamMem h2{font-size:18px;margin:0 0 4px}.dshDreamMem h3{font-size:14px;margin:16px 0 6px}
.dshDreamMem .dshDream_hint{color:${SECONDARY};font-size:12.5px;margin-top:2px}
.dshDreamMem .dshDream_error{color:${ERROR};font-size:12.5px;margin:6px 0}
.dshDreamMem .dshDream_ok{color:var(--dsw-alias-state-success-primary,#1f8a3b)}
.dshDreamMem .dshDream_actions{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin:8px 0}
.dshDreamMem .dshDream_label{display:flex;gap:8px;align-items:center;flex-wrap:wrap}
.dshDreamMem button,.dshDreamMem_button{font:inherit;padding:5px 14px;border-radius:6px;border:1px solid ${SEPARATOR};background:${FILL};color:inherit;cursor:pointer;white-space:nowrap;flex:none;text-decoration:none;display:inline-block;line-height:1.5}
.dshDreamMem button.dshDream_link{border:none;background:none;padding:0;text-decoration:underline;font-size:12.5px}
.dshDreamMem button:disabled{opacity:.5;cursor:default}
.dshDreamMem input[type=text],.dshDreamMem input[type=search],.dshDreamMem input[type=date],.dshDreamMem select,.dshDreamMem textarea{padding:5px 8px;border:1px solid ${SEPARATOR};border-radius:6px;font:inherit;background:transparent;color:inherit;box-sizing:border-box;min-width:0}
.dshDreamMem .dshDream_meaning{margin:8px 0;font-size:12.5px;padding:6px 10px;border-radius:6px;background:${FILL}}
.dshDreamMem details.dshDream_detail{border:none;padding:0;margin:2px 0}.dshDreamMem details.dshDream_detail summary{font-size:12px;color:${SECONDARY}}
.dshDreamMem details.dshDream_detail pre{white-space:pre-wrap;font-size:12px;margin:4px 0}
.dshDreamMem_head{display:flex;justify-content:space-between;align-items:center;gap:12px}
.dshDreamMem_counts{font-size:13px;margin:6px 0}
.dshDreamMem_notice{margin:8px 0;font-size:13px}
.dshDreamMem_tabs{display:flex;gap:4px;border-bottom:1px solid ${SEPARATOR};margin:12px 0 10px}
.dshDreamMem button.dshDreamMem_tab{border:none;border-bottom:2px solid transparent;border-radius:0;background:none;padding:6px 12px;color:${SECONDARY}}
.dshDreamMem button.dshDreamMem_tab.is-active{border-bottom-color:currentColor;color:inherit;font-weight:600}
.dshDreamMem_filters{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:8px 12px;align-items:end;margin:4px 0 10px}
.dshDreamMem_filter{display:flex;flex-direction:column;gap:2px;font-size:12.5px;color:${SECONDARY};min-width:0}
.dshDreamMem_filter input,.dshDreamMem_filter select{width:100%;height:32px;color:var(--dsw-alias-label-primary,#1d1d1f);font-size:13.5px}
.dshDreamMem_filterActions{grid-column:1/-1;display:flex;gap:12px;align-items:center}
.dshDreamMem_rows{list-style:none;margin:0;padding:0;border-top:1px solid ${SEPARATOR}}
.dshDreamMem_row{border-bottom:1px solid ${SEPARATOR}}
.dshDreamMem button.dshDreamMem_rowButton{display:flex;gap:10px;width:100%;text-align:left;border:none;border-radius:0;background:none;padding:8px 4px;white-space:normal}
.dshDreamMem button.dshDreamMem_rowButton:hover{background:${FILL}}
.dshDreamMem_rank{color:${SECONDARY};min-width:1.6em;text-align:right}
.dshDreamMem_rowBody{display:flex;flex-direction:column;min-width:0;flex:1}
.dshDreamMem_text{overflow-wrap:anywhere}
.dshDreamMem_row.is-quarantined .dshDreamMem_text{color:${SECONDARY}}
.dshDreamMem_meta{color:${SECONDARY};font-size:12px}
.dshDreamMem_badge{display:inline-block;margin-left:8px;padding:0 6px;border-radius:4px;background:${WARN_FILL};color:#8a5a00;font-size:11.5px}
.dshDreamMem_pager{display:flex;gap:14px;align-items:center;justify-content:center;margin:10px 0}
.dshDreamMem_empty{color:${SECONDARY};padding:14px 4px}
.dshDreamMem_searchForm{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.dshDreamMem_searchForm input[type=search]{flex:1 1 260px}
.dshDreamMem_modes{display:flex;border:1px solid ${SEPARATOR};border-radius:6px;overflow:hidden}
.dshDreamMem_mode{padding:5px 12px;cursor:pointer;font-size:13px}.dshDreamMem_mode input{position:absolute;width:1px;height:1px;opacity:0;margin:0}
.dshDreamMem_mode.is-active{background:${FILL};font-weight:600}
.dshDreamMem details.dshDreamMem_whyFold{margin:10px 0;border:1px solid ${SEPARATOR};border-radius:8px;padding:6px 12px}
.dshDreamMem_whyFold summary{cursor:pointer;font-weight:600}
.dshDreamMem_whyHead{margin:6px 0}
.dshDreamMem_whyList{margin:0;padding-left:1.6em}.dshDreamMem_whyItem{margin:6px 0}
.dshDreamMem button.dshDreamMem_whyText{border:none;background:none;padding:0;text-align:left;white-space:normal;text-decoration:underline dotted;text-underline-offset:3px}
.dshDreamMem_whyNote{font-size:12px;color:#8a5a00}
.dshDreamMem_held{margin:0;padding-left:1.2em;font-size:13px}
.dshDreamMem_detail{margin-top:8px}
.dshDreamMem_fullText{margin:10px 0;padding:10px 14px;border-left:3px solid ${SEPARATOR};background:${FILL};border-radius:0 6px 6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
.dshDreamMem_fullText.is-quarantined{color:${SECONDARY}}
.dshDreamMem_facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 16px;margin:14px 0 8px}.dshDreamMem_facts dt{color:${SECONDARY}}.dshDreamMem_facts dd{margin:0;overflow-wrap:anywhere}
.dshDreamMem_states{margin:0;padding-left:1.2em}
.dshDreamMem_table{border-collapse:collapse;width:100%;font-size:13px}
.dshDreamMem_table th{text-align:left;font-weight:500;color:${SECONDARY};border-bottom:1px solid ${SEPARATOR};padding:4px 8px 4px 0}
.dshDreamMem_table td{border-bottom:1px solid ${SEPARATOR};padding:5px 8px 5px 0;vertical-align:top}
.dshDreamMem_table tr.is-current td{background:rgba(31,138,59,.08)}
.dshDreamMem_table tr.is-quarantined td{color:${SECONDARY}}
.dshDreamMem_marks{white-space:nowrap;font-size:12px}
.dshDreamMem_actionForm{margin:6px 0 10px;padding:10px 12px;border:1px solid ${SEPARATOR};border-radius:8px}
.dshDreamMem_actionForm.is-danger{border-color:${ERROR}}
.dshDreamMem_actionForm textarea{width:100%;margin-top:6px;resize:vertical}
.dshDreamMem_actionForm input[type=text]{flex:1 1 260px}
.dshDreamMem button.dshDreamMem_danger{color:${ERROR}}
`;

export function MemoriesStyle(): React.ReactElement {
  return h("style", null, CSS);
}
