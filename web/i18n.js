// Interface strings: Chinese (default) and English.
const STRINGS = {
  zh: {
    title: '贵阳捉鸡麻将',
    lang_toggle: 'EN',
    your_name: '昵称',
    name_placeholder: '输入昵称',
    create_room: '创建房间',
    game: '玩法',
    game_guiyang: '贵阳捉鸡',
    game_jintan: '金坛麻将',
    jt_base: '底数',
    jt_flower_value: '花分值',
    jt_chow: '可吃',
    jt_no_chow: '不可吃',
    join_room: '加入房间',
    room_code: '房间号',
    join: '加入',
    players: '人数',
    players_4: '4人',
    players_3: '三丁拐 (3人)',
    players_2: '二丁拐 (2人)',
    hands: '局数',
    hands_n: '{n}局',
    scoring: '计分',
    lian_zhuang: '连庄',
    yi_kou_san: '一扣三',
    yi_kou_er_hint: '都不选 = 一扣二',
    yao_bai_ji: '摇摆鸡',
    man_tang_ji: '满堂鸡',
    wu_gu_ji: '乌骨鸡',
    ben_ji: '本鸡',
    xing_qi_ji: '星期鸡',
    chui_feng_ji: '吹风鸡',
    chui_feng_blown: '吹风鸡: 翻到5筒, 本局鸡不算',
    weekday_n: '星期{n}',
    claim_seconds: '抢牌秒数',
    turn_seconds: '出牌秒数',
    advanced: '更多选项',
    base_points: '底分',
    fan_table: '番表',
    fan_standard: '标准',
    fan_app: 'App番表',
    dou_values: '豆',
    dou_standard: '标准',
    dou_all_three: '全3分',
    multiple_winners: '一炮多响',
    pass_pong_lock: '过碰',
    share_link: '分享链接',
    copy: '复制',
    copied: '已复制',
    add_bots: '添加机器人',
    waiting_players: '等待玩家加入…',
    seat: '座位',
    empty_seat: '空位',
    bot: '机器人',
    you: '你',
    conn_connecting: '连接中…',
    conn_connected: '已连接',
    conn_reconnecting: '重连中…',
    conn_closed: '已断开',
    retry_n: '第{n}次',
    wall: '牌墙',
    hand_no: '第{n}/{m}局',
    dealer: '庄',
    streak: '连{n}',
    auto: '托管',
    bao_ting: '报听',
    ding_que: '定缺',
    que: '缺',
    score: '分',
    waits: '听牌',
    unseen: '剩{n}张',
    next_seat: '下家',
    opposite: '对家',
    prev_seat: '上家',
    act_win: '胡',
    act_self_draw: '自摸',
    act_kong: '杠',
    act_pong: '碰',
    act_chow: '吃',
    bu_hua: '补花',
    flowers: '花',
    hua: '花',
    fan: '番',
    capped: '封顶',
    act_pass: '过',
    act_discard: '打出',
    your_turn: '请出牌',
    choose_que: '请选择定缺',
    waiting_others: '等待其他玩家…',
    settlement: '结算',
    result_win: '胡牌',
    result_huang: '黄庄',
    winners: '赢家',
    payments: '支付明细',
    from: '付',
    to: '收',
    points: '分',
    reason: '原因',
    turned: '翻牌',
    chickens: '鸡',
    delta: '本局',
    total: '总分',
    seed: '种子',
    seed_hash: '种子哈希',
    ready_next: '准备 / 下一局',
    ready_sent: '已准备，等待其他玩家…',
    final_standings: '最终排名',
    session_over: '本场结束',
    last_settlement: '上局结算',
    close: '关闭',
    spectator: '观战中',
    no_payments: '无支付',
    hands_revealed: '各家手牌',
    error: '错误',
    back_lobby: '返回大厅',
    start_hint: '人满后自动开局',
    next_dealer: '下局庄家',
    rank: '名次',
    robbing: '抢杠',
    replaced: '此座位已在其他窗口打开',
    reconnect: '重新连接',
    auto_on: '托管',
    auto_off: '取消托管',
    bank_seconds: '时间银行',
    bank_none: '不用',
    bank_hint: '每局每人的额外思考时间（秒）',
    dissolve: '解散',
    dissolve_title: '解散房间？',
    dissolve_text: '发起解散投票：所有玩家同意后本场立即结束，进行中的一局不结算。',
    dissolve_propose: '发起投票',
    cancel: '取消',
    vote_title: '解散投票',
    vote_agree: '同意',
    vote_refuse: '拒绝',
    vote_pending: '未表态',
    vote_wait: '已表态，等待其他玩家…',
    vote_dissolved: '房间已解散',
    vote_refused: '{name} 拒绝解散，游戏继续',
    vote_refused_anon: '有玩家拒绝解散，游戏继续',
    vote_expired: '投票超时，游戏继续',
    vote_finished: '本场已结束',
    dissolved: '已解散',
    session_dissolved: '本场已解散',
  },
  en: {
    title: 'Guiyang Zhuoji Mahjong',
    lang_toggle: '中文',
    your_name: 'Name',
    name_placeholder: 'Your name',
    create_room: 'Create room',
    game: 'Game',
    game_guiyang: 'Guiyang Zhuoji',
    game_jintan: 'Jintan',
    jt_base: 'base',
    jt_flower_value: 'per flower',
    jt_chow: 'chow',
    jt_no_chow: 'no chow',
    join_room: 'Join room',
    room_code: 'Room code',
    join: 'Join',
    players: 'Players',
    players_4: '4 players',
    players_3: '3 players (三丁拐)',
    players_2: '2 players (二丁拐)',
    hands: 'Hands',
    hands_n: '{n} hands',
    scoring: 'Scoring',
    lian_zhuang: 'Dealer streak (连庄)',
    yi_kou_san: 'Yi kou san (一扣三)',
    yi_kou_er_hint: 'neither = yi kou er (一扣二)',
    yao_bai_ji: 'Swinging chicken (摇摆鸡)',
    man_tang_ji: 'Full-table chicken (满堂鸡)',
    wu_gu_ji: 'Black-bone chicken: 8p (乌骨鸡)',
    ben_ji: 'Turned tile is a chicken (本鸡)',
    xing_qi_ji: 'Weekday chicken (星期鸡)',
    chui_feng_ji: '5p turned blows chickens (吹风鸡)',
    chui_feng_blown: '吹风鸡: 5p turned, no chickens this hand',
    weekday_n: 'weekday {n}',
    claim_seconds: 'Claim seconds',
    turn_seconds: 'Turn seconds',
    advanced: 'More options',
    base_points: 'Base points',
    fan_table: 'Fan table',
    fan_standard: 'Standard',
    fan_app: 'App',
    dou_values: 'Kong values',
    dou_standard: 'Standard',
    dou_all_three: 'All 3',
    multiple_winners: 'Multiple winners',
    pass_pong_lock: 'Pass-pong lock',
    share_link: 'Share link',
    copy: 'Copy',
    copied: 'Copied',
    add_bots: 'Add bots',
    waiting_players: 'Waiting for players…',
    seat: 'Seat',
    empty_seat: 'empty',
    bot: 'bot',
    you: 'you',
    conn_connecting: 'Connecting…',
    conn_connected: 'Connected',
    conn_reconnecting: 'Reconnecting…',
    conn_closed: 'Disconnected',
    retry_n: 'try {n}',
    wall: 'Wall',
    hand_no: 'Hand {n}/{m}',
    dealer: 'D',
    streak: '×{n}',
    auto: 'Auto',
    bao_ting: 'Ready (报听)',
    ding_que: 'Void suit',
    que: 'void',
    score: 'pts',
    waits: 'Waits',
    unseen: '{n} left',
    next_seat: 'Right',
    opposite: 'Across',
    prev_seat: 'Left',
    act_win: 'Win',
    act_self_draw: 'Self-draw',
    act_kong: 'Kong',
    act_pong: 'Pong',
    act_chow: 'Chow',
    bu_hua: 'flower',
    flowers: 'Flowers',
    hua: 'flowers (花)',
    fan: 'fan (番)',
    capped: 'capped (封顶)',
    act_pass: 'Pass',
    act_discard: 'discards',
    your_turn: 'Your turn',
    choose_que: 'Choose a void suit',
    waiting_others: 'Waiting for others…',
    settlement: 'Settlement',
    result_win: 'Win',
    result_huang: 'Exhausted (黄庄)',
    winners: 'Winners',
    payments: 'Payments',
    from: 'From',
    to: 'To',
    points: 'Pts',
    reason: 'Reason',
    turned: 'Turned',
    chickens: 'Chickens',
    delta: 'Hand',
    total: 'Total',
    seed: 'Seed',
    seed_hash: 'Seed hash',
    ready_next: 'Ready / next hand',
    ready_sent: 'Ready, waiting for others…',
    final_standings: 'Final standings',
    session_over: 'Session over',
    last_settlement: 'Last settlement',
    close: 'Close',
    spectator: 'Spectating',
    no_payments: 'No payments',
    hands_revealed: 'Hands',
    error: 'Error',
    back_lobby: 'Lobby',
    start_hint: 'The hand starts when all seats are filled',
    next_dealer: 'Next dealer',
    rank: 'Rank',
    robbing: 'Kong to rob',
    replaced: 'This seat was opened in another window',
    reconnect: 'Reconnect',
    auto_on: 'Auto-play',
    auto_off: 'Stop auto-play',
    bank_seconds: 'Time bank',
    bank_none: 'none',
    bank_hint: 'extra thinking time per seat and hand (seconds)',
    dissolve: 'Dissolve',
    dissolve_title: 'Dissolve the room?',
    dissolve_text: 'Start a vote: when every player agrees the session ends now; the hand in progress is not settled.',
    dissolve_propose: 'Start vote',
    cancel: 'Cancel',
    vote_title: 'Vote: dissolve the room',
    vote_agree: 'Agree',
    vote_refuse: 'Refuse',
    vote_pending: 'undecided',
    vote_wait: 'Voted, waiting for the others…',
    vote_dissolved: 'The room was dissolved',
    vote_refused: '{name} refused; the game goes on',
    vote_refused_anon: 'A player refused; the game goes on',
    vote_expired: 'The vote expired; the game goes on',
    vote_finished: 'The session is over',
    dissolved: 'Dissolved',
    session_dissolved: 'Session dissolved',
  },
};

/** Every error code the server sends (docs/protocol.md: REST ``detail.code`` and the
 *  WebSocket ``error`` message), as a player reads it. */
export const ERRORS = {
  zh: {
    room_full: '房间已满，没有空座位了',
    token_required: '请先入座再操作（需要座位凭证）',
    too_many_sockets: '连接太多，请关闭其他页面后重试',
    too_many_spectators: '观战人数已满',
    bad_cursor: '翻页参数无效，请从第一页重新查询',
    bad_correction: '这条更正无效（牌局未结算、座位不对、分数须大于0或已作废）',
    bad_range: '结束时间必须晚于开始时间',
    conflict: '与已有记录冲突，未做更改',
    not_found: '找不到该记录',
    already_seated: '你已经在这个房间入座了（也许是在另一台设备上）',
    bad_player_code: '这个玩家码不存在',
    player_code_required: '需要玩家码',
    bad_player: '请给出玩家名或玩家编号',
    unknown_room: '房间 {code} 不存在，请检查房间号',
    stale_prompt: '这一步已过时，牌局已经往下走了',
    illegal_action: '这步不合规则，不能这样出',
    not_your_turn: '还没轮到你',
    bad_token: '座位凭证无效，请重新加入房间',
    bad_message: '消息格式不对',
    bad_action: '操作无效',
    no_hand: '现在没有进行中的牌局',
    no_session: '牌局不在进行中，不能解散',
    not_between_hands: '现在不能准备',
    no_vote: '没有进行中的解散投票',
    already_voted: '你已经投过票了',
    spectator: '观战中，不能操作',
    too_large: '消息太长',
    rate_limited: '操作太频繁，请稍后再试',
    replaced: '你的座位已在另一个页面打开',
    internal: '服务器出错了，本次操作没有生效',
    unavailable: '服务器暂时不可用，请稍后再试',
    bad_request: '请求无效',
    forbidden: '没有权限',
    hand_over: '本局已经结束',
    network: '网络连接失败，请检查网络',
    unknown: '出错了 ({code})',
    option_invalid: '选项「{label}」无效',
    field_invalid: '「{label}」无效',
    options_exclusive: '选项「{labels}」不能同时选',
    options_invalid: '房间选项无效',
    v_too_small: '太小',
    v_too_large: '太大',
    v_choice: '不在可选范围内',
    v_integer: '应为整数',
    v_bool: '应为是或否',
    v_extra: '不认识这个选项',
    v_missing: '不能为空',
    v_too_short: '太短',
    v_too_long: '太长',
  },
  en: {
    token_required: 'Take a seat first (a seat token is needed)',
    too_many_sockets: 'Too many connections: close other tabs and retry',
    too_many_spectators: 'The room has as many spectators as it takes',
    bad_cursor: 'Invalid page cursor: start again from the first page',
    bad_correction: 'Invalid correction (hand not settled, wrong seat, points not above 0, or already voided)',
    bad_range: 'The end must be later than the start',
    conflict: 'Conflicts with what is stored: nothing changed',
    not_found: 'Not found',
    already_seated: 'You already hold a seat in this room (perhaps on another device)',
    bad_player_code: 'No player has this player code',
    player_code_required: 'A player code is needed',
    bad_player: 'Give a player name or a profile id',
    room_full: 'The room is full: every seat is taken',
    unknown_room: 'Room {code} does not exist: check the code',
    stale_prompt: 'Too late: the hand has moved on',
    illegal_action: 'The rules do not allow that move',
    not_your_turn: 'It is not your turn',
    bad_token: 'Your seat pass is not valid: join the room again',
    bad_message: 'Malformed message',
    bad_action: 'Invalid action',
    no_hand: 'No hand is being played',
    no_session: 'The session is not running: nothing to dissolve',
    not_between_hands: 'You cannot get ready now',
    no_vote: 'No dissolve vote is open',
    already_voted: 'You have already voted',
    spectator: 'Spectators cannot play',
    too_large: 'Message too long',
    rate_limited: 'Too many requests: try again shortly',
    replaced: 'Your seat was opened in another tab',
    internal: 'Server error: nothing was changed',
    unavailable: 'The server is unavailable: try again shortly',
    bad_request: 'Invalid request',
    forbidden: 'Not allowed',
    hand_over: 'The hand is over',
    network: 'Network error: check your connection',
    unknown: 'Error ({code})',
    option_invalid: 'Option "{label}" is invalid',
    field_invalid: '"{label}" is invalid',
    options_exclusive: 'Options "{labels}" cannot be chosen together',
    options_invalid: 'Invalid room options',
    v_too_small: 'too small',
    v_too_large: 'too large',
    v_choice: 'not one of the choices',
    v_integer: 'must be a whole number',
    v_bool: 'must be yes or no',
    v_extra: 'unknown option',
    v_missing: 'required',
    v_too_short: 'too short',
    v_too_long: 'too long',
  },
};

/** pydantic error ``type`` -> ERRORS key of a short reason. */
const VALIDATION_KINDS = {
  greater_than_equal: 'v_too_small', greater_than: 'v_too_small',
  less_than_equal: 'v_too_large', less_than: 'v_too_large',
  literal_error: 'v_choice', enum: 'v_choice',
  int_parsing: 'v_integer', int_type: 'v_integer', int_from_float: 'v_integer',
  bool_parsing: 'v_bool', bool_type: 'v_bool',
  extra_forbidden: 'v_extra', missing: 'v_missing',
  string_too_short: 'v_too_short', string_too_long: 'v_too_long',
};

function errT(key, params) {
  let s = (ERRORS[lang] && ERRORS[lang][key]) || ERRORS.zh[key] || '';
  if (params) {
    for (const [k, v] of Object.entries(params)) s = s.replace(`{${k}}`, String(v));
  }
  return s;
}

/** The player's message for a server error ``code`` (``params``: e.g. ``{code}`` of a room). */
export function errorMessage(code, params = {}) {
  if (code && ERRORS.zh[code]) return errT(code, { code: '', ...params }).replace('  ', ' ');
  return errT('unknown', { code: code || '?' });
}

/** FastAPI 422 ``detail`` list -> one line naming each bad option by its label
 *  (``label(key)`` gives it), e.g. "选项「底分」无效：太小". */
export function validationMessage(detail, label) {
  const lines = [];
  for (const e of detail) {
    const loc = Array.isArray(e.loc) ? e.loc.filter((x) => x !== 'body') : [];
    const why = VALIDATION_KINDS[e.type] ? errT(VALIDATION_KINDS[e.type]) : '';
    const sep = lang === 'zh' ? '：' : ': ';
    if (loc[0] === 'options' && loc.length > 1) {
      lines.push(errT('option_invalid', { label: label(String(loc[1])) }) + (why ? sep + why : ''));
    } else if (loc[0] === 'options') {
      // a rule across options (e.g. 连庄 with 一扣三): name the options its message names
      const keys = [...String(e.msg || '').matchAll(/\b([a-z]+(?:_[a-z]+)+)\b/g)].map((m) => m[1]);
      const labels = [...new Set(keys)].map(label);
      lines.push(labels.length
        ? errT('options_exclusive', { labels: labels.join(lang === 'zh' ? '」「' : '", "') })
        : errT('options_invalid'));
    } else if (loc.length) {
      lines.push(errT('field_invalid', { label: label(String(loc[loc.length - 1])) }) + (why ? sep + why : ''));
    } else {
      lines.push(errT('bad_request'));
    }
  }
  return lines.join(lang === 'zh' ? '；' : '; ');
}

export const REASONS = {
  zh: {
    hu: '胡', dou: '豆', ji: '鸡', chong_feng_ji: '冲锋鸡', ze_ren_ji: '责任鸡',
    ying_bao: '硬报', sha_bao: '杀报', cha_jiao: '查叫', cha_que: '查缺', yuan_que: '原缺',
  },
  en: {
    hu: 'win (胡)', dou: 'kong (豆)', ji: 'chicken (鸡)', chong_feng_ji: 'charging chicken (冲锋鸡)',
    ze_ren_ji: 'liable chicken (责任鸡)', ying_bao: 'hard ready (硬报)', sha_bao: 'kill-ready (杀报)',
    cha_jiao: 'ready check (查叫)', cha_que: 'void check (查缺)', yuan_que: 'native void (原缺)',
  },
};

export const HAND_TYPES = {
  ping_hu: '平胡', da_dui_zi: '大对子', qi_dui: '七对', long_qi_dui: '龙七对', dan_diao: '单吊',
  qing_yi_se: '清一色', qing_da_dui: '清大对', qing_qi_dui: '清七对', qing_long_bei: '青龙背',
  qing_dan_diao: '清单吊', standard: '胡', ba_hua: '八花',
};

export const WIN_KINDS = {
  zi_mo: '自摸', dian_pao: '点炮', gang_kai: '杠上开花', re_pao: '热炮', qiang_gang: '抢杠', ba_hua: '八花',
  ruan_bao: '软报', ying_bao: '硬报', sha_bao: '杀报', self_draw: '自摸', discard: '点炮',
};

let lang = 'zh';
try {
  lang = localStorage.getItem('gy.lang') || 'zh';
} catch (e) { /* ignore */ }
if (!STRINGS[lang]) lang = 'zh';

export function getLang() { return lang; }

export function setLang(l) {
  lang = STRINGS[l] ? l : 'zh';
  try { localStorage.setItem('gy.lang', lang); } catch (e) { /* ignore */ }
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
}

export function t(key, params) {
  let s = (STRINGS[lang] && STRINGS[lang][key]) || STRINGS.zh[key] || key;
  if (params) {
    for (const [k, v] of Object.entries(params)) s = s.replace(`{${k}}`, String(v));
  }
  return s;
}

export function reasonText(r) {
  return (REASONS[lang] && REASONS[lang][r]) || REASONS.zh[r] || r;
}

export function handTypeText(h) {
  if (!h) return '';
  const zh = HAND_TYPES[h] || h;
  return lang === 'en' ? `${zh} (${h})` : zh;
}

/** Apply translations to every element with data-i18n / data-i18n-placeholder. */
export function translateDom(root = document) {
  root.querySelectorAll('[data-i18n]').forEach((el) => {
    el.textContent = t(el.dataset.i18n);
  });
  root.querySelectorAll('[data-i18n-placeholder]').forEach((el) => {
    el.placeholder = t(el.dataset.i18nPlaceholder);
  });
  document.title = t('title');
}
