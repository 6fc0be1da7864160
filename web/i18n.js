// Interface strings: Chinese (default) and English.
const STRINGS = {
  zh: {
    title: '贵阳捉鸡麻将',
    lang_toggle: 'EN',
    your_name: '昵称',
    name_placeholder: '输入昵称',
    create_room: '创建房间',
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
  },
  en: {
    title: 'Guiyang Zhuoji Mahjong',
    lang_toggle: '中文',
    your_name: 'Name',
    name_placeholder: 'Your name',
    create_room: 'Create room',
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
  },
};

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
  qing_dan_diao: '清单吊',
};

export const WIN_KINDS = {
  zi_mo: '自摸', dian_pao: '点炮', gang_kai: '杠上开花', re_pao: '热炮', qiang_gang: '抢杠',
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
