/**
 * Query parameters that name a click, campaign, mailing or share rather than a page, so dropping
 * them never changes what the server returns. Names only, restated as data from three public lists
 * (no rule text copied):
 * - ClearURLs/Rules `globalRules` @ 9317c06 (LGPL-3.0: we restate the parameter names it strips on
 *   every site, not its regexes),
 * - mpchadwick/tracking-query-params-registry `_data/params.csv` @ 7377d3c (public domain),
 * - normalize-url's default `removeQueryParameters` (`utm_*`, MIT).
 *
 * Left out on purpose, because sites use the same names for content: `ref`, `referrer`
 * (ClearURLs' optional referral list; GitHub's `?ref=branch`), `si`, `campid`, `customid`,
 * `toolid`, `rtid`, and ClearURLs' `[a-z]?mc` (any name like `mc` or `amc`).
 */
const NAMES = [
  // Campaign tags without an underscore suffix
  'utm',
  'mtm',
  // Ad click identifiers
  'gclid',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'gad_source',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'ndclid',
  'sccid',
  'irclickid',
  'rb_clickid',
  'wickedid',
  'vmcid',
  'igshid',
  'srsltid',
  'epik',
  'ef_id',
  's_kwcid',
  's_cid',
  'mkwid',
  'pcrid',
  'cmpid',
  'dm_i',
  'gpromocode',
  'gqt',
  // Google Analytics / search
  '_ga',
  '_gl',
  'gs_l',
  // Facebook share
  'fb_action_ids',
  'fb_action_types',
  'fb_source',
  'fb_ref',
  'action_object_map',
  'action_type_map',
  'action_ref_map',
  // Mail and marketing automation
  'mc_cid',
  'mc_eid',
  'mc_tc',
  'mkt_tok',
  '_hsenc',
  '__hsfp',
  '__hssc',
  '__hstc',
  'hsctatracking',
  'ml_subscriber',
  'ml_subscriber_hash',
  'vero_conv',
  'vero_id',
  'oly_anon_id',
  'oly_enc_id',
  '_bta_tid',
  '_bta_c',
  'trk_contact',
  'trk_msg',
  'trk_module',
  'trk_sid',
  '_ke',
  '_kx',
  'sms_source',
  'sms_click',
  'sms_uph',
  '__s',
  'os_ehash',
  // Feed and product-listing tools
  'gdfms',
  'gdftrk',
  'gdffi',
  'redirect_log_mongo_id',
  'redirect_mongo_id',
  'sb_referer_host',
  '_branch_match_id',
  'mkevt',
  'mkcid',
  'mkrid',
  'ceneo_spo',
  'tracking_source',
  // Analytics suites
  'pk_campaign',
  'pk_kwd',
  'pk_keyword',
  'pk_source',
  'pk_medium',
  'pk_content',
  'pk_cid',
  'hmb_campaign',
  'hmb_medium',
  'hmb_source',
  'itm_campaign',
  'itm_medium',
  'itm_source',
  'tw_source',
  'tw_campaign',
  'tw_term',
  'tw_content',
  'tw_adid',
  'wt_mc',
  'wtmc',
  'wt_zmc',
  'wtzmc',
  'wtrid',
  // Social and news widgets
  '__twitter_impression',
  'echobox',
  '_openstat',
  'spm',
]

/** Families where every member is tracking (utm_source, mtm_kwd, matomo_group, hsa_cam, …). */
const PREFIXES = ['utm_', 'mtm_', 'matomo_', 'piwik_', 'hsa_', 'ga_', 'otm_', 'vn_']

const NAME_SET: ReadonlySet<string> = new Set(NAMES)

/** `name` as it appears before `=`, already percent-decoded; case does not matter. */
export function isTrackingParam(name: string): boolean {
  // A stray `?` (`??utm_source=`, or an encoded `%3F` before the name) still marks tracking.
  const n = name.replace(/^\?+/, '').toLowerCase()
  if (NAME_SET.has(n)) return true
  return PREFIXES.some((p) => n.length > p.length && n.startsWith(p))
}
