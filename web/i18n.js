// Interface strings: Chinese (default) and English.
const STRINGS = {
  zh: {
    // the site's name (the lobby, 战绩): both its games
    title: '贵阳捉鸡 · 金坛麻将',
    // a room's brand, the way back to the lobby: its game's name, short enough for a phone's bar
    brand_guiyang: '贵阳捉鸡麻将',
    brand_jintan: '金坛麻将',
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
    advanced_hint: '底分：每分的倍数。番表 App：七对 10、龙七对 20、青龙背 30 等（一扣二时）。豆 全3分：闷豆、转弯豆、明豆都是 3 分（标准 2 / 3 / 1）。一炮多响：一张炮可以几家同时胡。过碰：不碰的牌，到自己下次出牌前不能再碰',
    yi_kou_er_hint: '都不选 = 一扣二：平胡 1 番，自摸每家多付 1。一扣三：平胡 3 番，大牌更高，自摸不多付。连庄：庄家连 N 局，与庄家的胡牌和查叫 +N',
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
    add_bots: '空位全补机器人',
    add_bot_here: '+ 机器人',
    remove_bot: '移除',
    spectate: '观战',
    spectating: '观战中',
    sound_on: '声音: 开 (点击静音)',
    sound_off: '声音: 关 (点击打开)',
    phrases: '快捷语',
    replaced_why: '这个座位已在另一个页面打开，本页已停止计时和操作。',
    replaced_resume: '在本页继续',
    waiting_players: '等待玩家加入…',
    seat: '座位',
    empty_seat: '空位',
    held_for: '为 {name} 保留',
    bot: '机器人',
    you: '你',
    conn_connecting: '连接中…',
    conn_connected: '已连接',
    conn_reconnecting: '重连中…',
    conn_closed: '已断开',
    waiting_database: '等待数据库恢复…',
    retry_n: '第{n}次',
    wall: '牌墙',
    hand_no: '第{n}/{m}局',
    dealer: '庄',
    winds: '东南西北',
    wind_title: '门风：{w}（庄家为东，按出牌顺序）',
    dealer_title: '庄家',
    dealer_streak_title: '庄家，连庄 {n} 局',
    streak: '连{n}',
    auto: '托管',
    bao_ting: '报听',
    ding_que: '定缺',
    que: '缺',
    score: '分',
    waits: '听牌',
    unseen: '剩{n}张',
    self_draw_only: '只能自摸',
    self_draw_only_why: '一花起胡：无花无番不能接炮',
    next_seat: '下家',
    opposite: '对家',
    prev_seat: '上家',
    act_win: '胡',
    claim_wait: '已选择{action}，等待其他玩家…',
    act_draw: '摸',
    act_self_draw: '自摸',
    act_kong: '杠',
    act_pong: '碰',
    act_chow: '吃',
    bu_hua: '补花',
    deal_flowers: '开局补花',
    rp_claims: '要{what}',
    rp_claim_lost: '（未成）',
    flowers: '花',
    hua: '花',
    fan: '番',
    capped: '封顶',
    fair_check: '牌局验证（种子）',
    jt_formula: '底{base} + {hua}花×{value} = {unit} · ×{mult} ({fan}番) = {total}',
    jt_formula_ba_hua: '底{base} + {hua}花×{value} = {unit} · ×{mult} (八花封顶) = {total}',
    jt_pay_dealt_in: '点炮',
    jt_pay_self_draw: '被自摸',
    jt_pay_robbed: '被抢杠 · 一家包三家 ×3',
    act_pass: '过',
    act_discard: '打出',
    dice_title: '骰子 {a} 点、{b} 点',
    discard_btn: '打出', // the button under a tile raised by a tap (a verb, as 碰 / 杠)
    your_turn: '请出牌',
    choose_que: '请选择定缺',
    waiting_que: '各家正在定缺',
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
    ready_others: '已准备：{names}', ready_badge: '已准备', names_sep: '、',
    final_standings: '最终排名',
    session_over: '本场结束',
    last_settlement: '上局结算',
    again: '再来一场',
    again_join: '加入下一场',
    previous_settled: '第{n}局已结算：你 {delta}（点“上局结算”查看）',
    close: '关闭',
    spectator: '观战中',
    no_payments: '无支付',
    ready_tag: '叫牌',
    not_ready_tag: '未叫',
    huang_all_ready: '黄庄不算豆和鸡；各家都叫牌，不查叫',
    huang_none_ready: '黄庄不算豆和鸡；各家都未叫，不查叫',
    huang_cha_jiao: '黄庄不算豆和鸡；未叫的赔给叫牌的（查叫）',
    huang_jintan: '黄庄不计分，庄家连庄',
    hands_revealed: '各家手牌',
    error: '错误',
    back_lobby: '返回大厅',
    leave_mid_hand: '牌局进行中。离开后座位保留，轮到你时超时由系统代打；可从大厅回到本桌。',
    leave_stay: '继续游戏', leave_go: '离开',
    active_rooms: '进行中的房间',
    next_hand_in: '下一局 {n}s',
    ready: '准备',
    back_to_room: '回到房间',
    room_waiting: '等人开局',
    room_in_play: '进行中',
    hands_played: '已打{n}/{m}局',
    records: '战绩',
    loser_dealt_in: '点炮',
    loser_robbed: '抢杠',
    replay: '回放',
    start_hint: '人满后自动开局',
    next_dealer: '下局庄家',
    rank: '名次',
    robbing: '抢杠',
    replaced: '此座位已在其他窗口打开',
    reconnect: '重新连接',
    auto_on: '托管',
    auto_off: '取消托管',
    bank_seconds: '时间银行',
    bank_short: '时间银行',
    bank_none: '不用',
    bank_hint: '每局每人的额外思考时间（秒）',
    dissolve: '解散',
    dissolve_title: '解散房间？',
    dissolve_text: '发起解散投票：所有玩家同意后本场立即结束，进行中的一局不结算。',
    dissolve_propose: '发起投票',
    dissolve_after_hand: '只有你和机器人时，进行中的一局要打完才能解散。本局结束后点「解散」即可立即结束；开托管可以让这局快些打完。',
    cancel: '取消',
    vote_title: '解散投票',
    vote_proposed: '{name} 申请解散房间', vote_you_proposed: '你申请了解散房间',
    vote_agree: '同意',
    vote_refuse: '拒绝',
    vote_pending: '未表态',
    vote_wait: '已表态，等待其他玩家…',
    vote_dissolved: '房间已解散',
    vote_refused: '{name} 拒绝解散，游戏继续',
    vote_refused_anon: '有玩家拒绝解散，游戏继续',
    vote_silence: '倒计时结束时未表态的玩家视为同意',
    vote_finished: '本场已结束',
    dissolved: '已解散',
    session_dissolved: '本场已解散',
    tag_men_dou: '闷',
    tag_ming_dou: '明',
    tag_zhuan_wan_dou: '转弯',
    tag_concealed_kong: '暗杠',
    tag_exposed_kong: '明杠',
    tag_added_kong: '补杠',
    ting_hints: '出牌提示',
    hint_discard: '打',
    hint_wait: '听',
    rules: '规则',
    rules_title: '本房规则',
    on: '开',
    off: '关',
    hand_type: '牌型',
    r_game: '玩法',
    r_fan: '番表',
    r_extras: '加番',
    r_dou: '豆（杠）',
    r_chickens: '鸡',
    r_claims: '抢牌与胡牌',
    r_timers: '计时',
    r_jt_hua: '花（胡牌者的）',
    jh_flower: '每张花牌：1 花',
    jh_honour_triplet: '字牌（风、箭）碰：1 花，暗刻：2 花',
    jh_honour_kong: '字牌明杠：3 花，暗杠：4 花',
    jh_number_kong: '数牌明杠（含加杠）：1 花，暗杠：2 花',
    jh_bu_hua: '补花：花牌不打也不留，摸到即亮出，从牌尾补一张',
    jt_fan_sum: '番可相加（混一色对对胡 2 番），每番翻一倍，封顶 ×4',
    r_jt_points: '得分与支付',
    jp_formula: '一份 = (底数 {base} + 花数 × 花分值 {value})，每番翻一倍，最多 ×4',
    jp_yi_hua: '一花起胡：点炮胡至少要 1 花或 1 番；自摸不限，抢杠总能胡',
    jp_self_draw: '自摸：其余三家各付一份；杠开算自摸，再加 1 番',
    jp_discard: '点炮：放炮的一家付一份',
    jp_rob: '抢杠：被抢的一家付三份',
    jp_ba_hua: '八花：集齐八张花牌立即胡牌，按自摸封顶计分（每家付一份 ×4）',
    jp_dealer: '庄家胡牌或黄庄则连庄，否则下家坐庄；黄庄不计分',
    scoring_yi_kou_er: '一扣二',
    scoring_yi_kou_san: '一扣三（自摸不加番）',
    scoring_lian_zhuang: '连庄（庄家连N局，与庄家的每笔胡牌和查叫+N）',
    x_zi_mo: '自摸：每家 +1',
    x_zi_mo_none: '自摸：不加番，每家付',
    x_gang_kai: '杠上开花：自摸再 +1',
    x_re_pao: '热炮（杠后炮）：+1，放炮者烧',
    x_qiang_gang: '抢杠：按自摸算，被抢者包三家并烧',
    x_ruan_bao: '软报（第一张出牌报听）：胡牌 +10',
    x_ying_bao: '硬报（第一摸自摸）：每家另付 20',
    x_sha_bao: '杀报（胡报听者的点炮）：报听者另付 10',
    x_lian_zhuang: '连庄：庄家输赢 +N（N = 连庄数）',
    x_tong_xing: '点炮胡平胡需要通行证：豆、报听（自己或放炮者）、热炮或抢杠；大对子以上不需要',
    d_men_dou: '闷豆（暗杠）：每家 {n}',
    d_zhuan_wan_dou: '转弯豆（补杠）：每家 {n}',
    d_ming_dou: '明豆（点杠）：放杠者 {n}',
    d_ready: '只算胡牌者和叫牌者的豆；黄庄不算豆',
    j_yao_ji: '幺鸡（1条）：每张 1',
    j_fan_pai_ji: '翻牌鸡：胡牌后翻一张，同花色下一张是鸡（9 翻 1）',
    j_yao_bai_ji: '摇摆鸡：翻牌两边的两张都是鸡',
    j_jin_ji: '金鸡：幺鸡也被翻中时每张幺鸡 ×2',
    j_chong_feng_ji: '冲锋鸡：第一张打出的幺鸡无人要，2（金 4）',
    j_ze_ren_ji: '责任鸡：第一张幺鸡被碰/杠：碰/杠的人叫牌，放的人赔他 2（金 4）；碰/杠的人未叫而放的人叫牌，反过来碰/杠的人赔 2',
    j_man_tang_ji: '满堂鸡：手牌、碰杠和打出未被要的牌都算鸡',
    j_shou_shang_ji: '手上鸡：只算手牌和碰杠的鸡，打出的不算',
    j_bao_ji: '包鸡：未叫牌者按打出和碰杠的幺鸡赔给叫牌者',
    j_wu_gu_ji: '乌骨鸡：8筒是鸡，每张 2（冲锋/责任 4）',
    j_ben_ji: '本鸡：翻出的那张牌本身也是鸡',
    j_xing_qi_ji: '星期鸡：与星期几同点数的三张是鸡',
    j_chui_feng_ji: '吹风鸡：翻到 5筒，本局所有鸡不算',
    c_guo_hu: '过胡：放弃胡牌后，自己出牌前不能再胡点炮（自摸可以）',
    c_ding_que: '定缺：开局选一门缺，手上有缺门牌不能胡，结算查缺；原缺另收 3',
    p_zi_mo: '自摸',
    p_zi_mo_robbed: '抢杠（按自摸）', // a robbed kong is valued as a self-draw (§8.4)
    p_gang_kai: '杠开',
    p_re_pao: '热炮',
    p_ruan_bao: '软报',
    p_lian_zhuang: '连庄',
    s_by_seat: '各家明细',
    s_win_hand: '胡牌',
    s_burned: '烧：豆和鸡作废',
    shao: '烧',
    jin: '金',
    s_per_tile: '每张{n}',
    s_times: '×{n}',
    s_dealer_only: '（庄家付）',
    seat_online: '在线', seat_offline: '离线',
    s_from: '来自',
    s_to: '付给',
    s_base: '底分×{n}',
    s_tiles: '{n}张',
    ji_at_hand: '手上', ji_at_meld: '碰杠里', ji_at_river: '河里',
    ji_at_hand_theirs: '他家手上', ji_at_meld_theirs: '他家碰杠里', ji_at_river_theirs: '他家河里',
    s_ready_value: '叫牌 {n}番',
    s_ready_type: '叫牌 {type} {n}番',
    s_void_tiles: '缺门 {n}张',
  },
  en: {
    title: 'Guiyang · Jintan Mahjong',
    brand_guiyang: 'Guiyang Zhuoji',
    brand_jintan: 'Jintan Mahjong',
    lang_toggle: '中文',
    your_name: 'Name',
    name_placeholder: 'Your name',
    create_room: 'Create room',
    game: 'Game',
    game_guiyang: 'Guiyang Zhuoji',
    game_jintan: 'Jintan',
    jt_base: 'base',
    jt_flower_value: 'per flower',
    jt_chow: 'chow allowed',
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
    advanced_hint: 'Base points (底分) multiply every point. Fan table App: seven pairs 10, dragon seven pairs 20, full-flush dragon seven pairs 30 and so on (in yi kou er). Kongs All 3: every kong (豆) pays 3 (standard: concealed 2, added 3, exposed 1). Multiple winners (一炮多响): a discard can be won by more than one seat. Pass-pong lock (过碰): a tile kind you did not pong cannot be ponged until your next discard',
    yi_kou_er_hint: 'Neither = yi kou er (一扣二): a plain win is worth 1, a self-draw takes 1 more from each. Yi kou san (一扣三): a plain win is worth 3, big hands more, no self-draw extra. Dealer streak (连庄): the dealer\'s Nth hand in a row, +N on wins and ready checks with the dealer',
    yao_bai_ji: 'Swinging chicken (摇摆鸡)',
    man_tang_ji: 'Full-table chicken (满堂鸡)',
    wu_gu_ji: 'Black-bone chicken: 8p (乌骨鸡)',
    ben_ji: 'Turned tile is a chicken (本鸡)',
    xing_qi_ji: 'Weekday chicken (星期鸡)',
    chui_feng_ji: '5p turned blows chickens (吹风鸡)',
    chui_feng_blown: 'Blowing chicken (吹风鸡): 5p turned, no chickens this hand',
    weekday_n: '{day} (weekday chicken rank {n})',
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
    add_bots: 'Fill empty seats with bots',
    add_bot_here: '+ bot',
    remove_bot: 'Remove',
    spectate: 'Watch',
    spectating: 'Watching',
    sound_on: 'Sound on (click to mute)',
    sound_off: 'Sound off (click to unmute)',
    phrases: 'Phrases',
    replaced_why: 'This seat was opened in another tab: this page stopped its countdown and its moves.',
    replaced_resume: 'Continue here',
    waiting_players: 'Waiting for players…',
    seat: 'Seat',
    empty_seat: 'empty',
    held_for: 'kept for {name}',
    bot: 'bot',
    you: 'you',
    conn_connecting: 'Connecting…',
    conn_connected: 'Connected',
    conn_reconnecting: 'Reconnecting…',
    conn_closed: 'Disconnected',
    waiting_database: 'Waiting for the database…',
    retry_n: 'try {n}',
    wall: 'Wall',
    hand_no: 'Hand {n}/{m}',
    dealer: 'Dealer',
    winds: 'ESWN',
    wind_title: 'Seat wind: {w} (the dealer is East, then in turn order)',
    dealer_title: 'Dealer (庄)',
    dealer_streak_title: 'Dealer (庄), {n} hands in a row',
    streak: '×{n}',
    auto: 'Auto',
    bao_ting: 'Ready (报听)',
    ding_que: 'Void suit',
    que: 'void ',
    score: 'pts',
    waits: 'Waits',
    unseen: '{n} left',
    self_draw_only: 'self-draw only',
    self_draw_only_why: 'a win on a discard needs a flower (花) or a fan (番): 一花起胡',
    next_seat: 'Right',
    opposite: 'Across',
    prev_seat: 'Left',
    act_win: 'Win',
    claim_wait: '{action} chosen: waiting for the others…',
    act_draw: 'draws',
    act_self_draw: 'Self-draw',
    act_kong: 'Kong',
    act_pong: 'Pong',
    act_chow: 'Chow',
    bu_hua: 'declares flower',
    deal_flowers: 'Flowers at the deal',
    rp_claims: 'claims {what}',
    rp_claim_lost: ' (not taken)',
    flowers: 'Flowers',
    hua: 'flowers (花)',
    fan: 'fan (番)',
    capped: 'capped (封顶)',
    fair_check: 'Check the deal (seed)',
    jt_formula: 'base {base} + {hua} flowers × {value} = {unit} · ×{mult} ({fan} fan) = {total}',
    jt_formula_ba_hua: 'base {base} + {hua} flowers × {value} = {unit} · ×{mult} (eight flowers, capped) = {total}',
    jt_pay_dealt_in: 'Dealt in',
    jt_pay_self_draw: 'Pays the self-draw',
    jt_pay_robbed: 'Kong robbed · pays for all three ×3',
    act_pass: 'Pass',
    act_discard: 'discards',
    dice_title: 'Dice: {a} and {b}',
    discard_btn: 'Discard',
    your_turn: 'Your turn',
    choose_que: 'Choose a void suit',
    waiting_que: 'players are choosing void suits',
    waiting_others: 'Waiting for others…',
    settlement: 'Settlement',
    result_win: 'Win',
    result_huang: 'Exhausted (黄庄)',
    winners: 'Winner', // one label per winner's block
    payments: 'Payments',
    from: 'From',
    to: 'To',
    points: 'Pts',
    reason: 'Reason',
    turned: 'Turned',
    chickens: 'Chickens',
    delta: 'This hand',
    total: 'Total',
    seed: 'Seed',
    seed_hash: 'Seed hash',
    ready_next: 'Ready / next hand',
    ready_sent: 'Ready, waiting for others…',
    ready_others: 'Ready: {names}', ready_badge: 'ready', names_sep: ', ',
    final_standings: 'Final standings',
    session_over: 'Session over',
    last_settlement: 'Last hand',
    again: 'Play again',
    again_join: 'Join the next session',
    previous_settled: 'Hand {n} was settled: you {delta} (see "Last hand")',
    close: 'Close',
    spectator: 'Spectating',
    no_payments: 'No payments',
    ready_tag: 'ready (叫牌)',
    not_ready_tag: 'not ready (未叫)',
    huang_all_ready: 'Exhausted: no kongs (豆) or chickens are paid; everyone is ready, so no ready check (查叫)',
    huang_none_ready: 'Exhausted: no kongs (豆) or chickens are paid; nobody is ready, so no ready check (查叫)',
    huang_cha_jiao: 'Exhausted: no kongs (豆) or chickens are paid; each seat not ready pays each ready seat (查叫)',
    huang_jintan: 'Exhausted (黄庄): nothing is paid, and the dealer deals again',
    hands_revealed: 'Hands',
    error: 'Error',
    back_lobby: 'Lobby',
    leave_mid_hand: 'A hand is in play. Your seat is kept while you are away, and the server plays your turns when your time runs out; come back from the lobby.',
    leave_stay: 'Stay', leave_go: 'Leave',
    active_rooms: 'Your rooms in play',
    next_hand_in: 'next hand in {n}s',
    ready: 'Ready',
    back_to_room: 'Back to the room',
    room_waiting: 'Waiting for players',
    room_in_play: 'In play',
    hands_played: '{n} of {m} hands played',
    records: 'Records',
    loser_dealt_in: 'Dealt in (点炮)',
    loser_robbed: 'Kong robbed (抢杠)',
    replay: 'Replay',
    start_hint: 'The hand starts when all seats are filled',
    next_dealer: 'Next dealer',
    rank: 'Rank',
    robbing: 'Kong to rob',
    replaced: 'This seat was opened in another window',
    reconnect: 'Reconnect',
    auto_on: 'Auto-play',
    auto_off: 'Stop auto-play',
    bank_seconds: 'Time bank',
    bank_short: 'bank',
    bank_none: 'none',
    bank_hint: 'extra thinking time per seat and hand (seconds)',
    dissolve: 'Dissolve',
    dissolve_title: 'Dissolve the room?',
    dissolve_text: 'Start a vote: when every player agrees the session ends now; the hand in progress is not settled.',
    dissolve_propose: 'Start vote',
    dissolve_after_hand: 'Only you and bots: the hand in play must be finished before the room can be dissolved. Once it ends, Dissolve ends the session at once; 托管 (auto-play) finishes the hand faster.',
    cancel: 'Cancel',
    vote_title: 'Vote: dissolve the room',
    vote_proposed: '{name} asks to dissolve the room', vote_you_proposed: 'You asked to dissolve the room',
    vote_agree: 'Agree',
    vote_refuse: 'Refuse',
    vote_pending: 'undecided',
    vote_wait: 'Voted, waiting for the others…',
    vote_dissolved: 'The room was dissolved',
    vote_refused: '{name} refused; the game goes on',
    vote_refused_anon: 'A player refused; the game goes on',
    vote_silence: 'Who has not answered when the time is up agrees',
    vote_finished: 'The session is over',
    dissolved: 'Dissolved',
    session_dissolved: 'Session dissolved',
    tag_men_dou: 'concealed',
    tag_ming_dou: 'exposed',
    tag_zhuan_wan_dou: 'added',
    tag_concealed_kong: 'concealed',
    tag_exposed_kong: 'exposed',
    tag_added_kong: 'added',
    ting_hints: 'Ready if you discard',
    hint_discard: 'discard',
    hint_wait: 'wait',
    rules: 'Rules',
    rules_title: 'Room rules',
    on: 'on',
    off: 'off',
    hand_type: 'Hand type',
    r_game: 'Game',
    r_fan: 'Fan table',
    r_extras: 'Extras',
    r_dou: 'Kongs (豆)',
    r_chickens: 'Chickens (鸡)',
    r_claims: 'Claims and wins',
    r_timers: 'Timers',
    r_jt_hua: 'Flowers (花, the winner\'s)',
    jh_flower: 'Each flower tile: 1',
    jh_honour_triplet: 'Honour (wind, dragon) pong: 1, concealed triplet: 2',
    jh_honour_kong: 'Honour exposed kong: 3, concealed kong: 4',
    jh_number_kong: 'Number-tile exposed (or added) kong: 1, concealed kong: 2',
    jh_bu_hua: 'Flowers (补花): never kept or discarded; one drawn is laid open and replaced from the back of the wall',
    jt_fan_sum: 'Fans add up (half flush all pongs, 混一色对对胡 = 2); each fan doubles, at most ×4',
    r_jt_points: 'Points and payments',
    jp_formula: 'One share = (base {base} + flowers × {value}), doubled for each fan, at most ×4',
    jp_yi_hua: 'One flower to win (一花起胡): a win on a discard needs 1 flower or 1 fan; a self-draw always wins, so does robbing a kong',
    jp_self_draw: 'Self-draw: each other seat pays a share; a win on a kong (杠开) is a self-draw with +1 fan',
    jp_discard: 'On a discard: the discarder pays a share',
    jp_rob: 'Robbing a kong (抢杠): the robbed seat pays three shares',
    jp_ba_hua: 'Eight flowers (八花): a seat with all eight wins at once, paid as a self-draw at the cap (each seat pays a share ×4)',
    jp_dealer: 'The dealer deals again after winning or an exhausted wall (which pays nothing); else the next seat deals',
    scoring_yi_kou_er: 'Yi kou er (一扣二)',
    scoring_yi_kou_san: 'Yi kou san (一扣三): no self-draw extra',
    scoring_lian_zhuang: 'Dealer streak (连庄): each win or ready-check (查叫) payment with the dealer +N',
    x_zi_mo: 'Self-draw (自摸): +1 from each',
    x_zi_mo_none: 'Self-draw (自摸): no extra, every other seat pays',
    x_gang_kai: 'Win on a kong replacement (杠开): +1 more',
    x_re_pao: 'Win on the discard after a kong (热炮): +1, the discarder is burned',
    x_qiang_gang: 'Robbing a kong (抢杠): valued as a self-draw, the robbed seat pays for all and is burned',
    x_ruan_bao: 'Soft ready (软报, declared with the first discard): win +10',
    x_ying_bao: 'Hard ready (硬报, self-draw on the first draw): 20 more from each',
    x_sha_bao: 'Winning on a ready seat\'s discard (杀报): it pays 10 more',
    x_lian_zhuang: 'Dealer streak (连庄): +N on payments with the dealer',
    x_tong_xing: 'A plain win (平胡) on a discard needs a pass: a kong, a ready declaration (either seat), a hot discard (热炮) or robbing a kong (抢杠); all pongs (大对子) and above need none',
    d_men_dou: 'Concealed kong (闷豆): {n} from each',
    d_zhuan_wan_dou: 'Added kong (转弯豆): {n} from each',
    d_ming_dou: 'Exposed kong (明豆): {n} from the discarder',
    d_ready: 'Only the winners\' and ready seats\' kongs count; none in an exhausted hand',
    j_yao_ji: '幺鸡 (1s): 1 per tile',
    j_fan_pai_ji: 'Turned chicken (翻牌鸡): after a win a tile is turned; the next of its suit is a chicken (9 → 1)',
    j_yao_bai_ji: 'Swinging chicken (摇摆鸡): both neighbours of the turned tile are chickens',
    j_jin_ji: 'Golden chicken (金鸡): 1s (幺鸡) turned too, each 1s ×2',
    j_chong_feng_ji: 'Charging chicken (冲锋鸡): the first 1s discarded, unclaimed: 2 (golden 4)',
    j_ze_ren_ji: 'Liable chicken (责任鸡): the first 1s ponged or konged: if the claimer is ready, the discarder pays it 2 (golden 4); if the claimer is not ready and the discarder is, the claimer pays the discarder 2',
    j_man_tang_ji: 'Full table (满堂鸡): hand, melds and unclaimed discards count',
    j_shou_shang_ji: 'In hand only (手上鸡): hand and melds count, discards do not',
    j_bao_ji: 'Paying for chickens (包鸡): a seat not ready pays the ready seats for its open 1s',
    j_wu_gu_ji: 'Black-bone chicken (乌骨鸡): 8p is a chicken worth 2 (charging / liable 4)',
    j_ben_ji: 'The turned tile itself is a chicken (本鸡)',
    j_xing_qi_ji: 'Weekday chicken (星期鸡): the three tiles of the weekday\'s rank',
    j_chui_feng_ji: 'Blowing chicken (吹风鸡): a turned 5p voids every chicken of the hand',
    c_guo_hu: 'Pass-lock (过胡): after passing a win, no win on a discard until your own next discard (self-draw allowed)',
    c_ding_que: 'Void suit (定缺): chosen at the deal; no win holding it; a void check (查缺) at the end, a native void (原缺) collects 3',
    p_zi_mo: 'self-draw',
    p_zi_mo_robbed: 'robbed kong (as self-draw)',
    p_gang_kai: 'win on a kong',
    p_re_pao: 'after-kong discard',
    p_ruan_bao: 'soft ready',
    p_lian_zhuang: 'dealer streak',
    s_by_seat: 'By seat',
    s_win_hand: 'Winning hand',
    s_burned: 'Burned (烧): kongs and chickens void',
    shao: 'burned',
    jin: 'golden',
    s_per_tile: '{n} each',
    s_times: '×{n}',
    s_dealer_only: ' (dealer pays)',
    seat_online: 'online', seat_offline: 'offline',
    s_from: 'from',
    s_to: 'to',
    s_base: 'base ×{n}',
    s_tiles: 'tiles: {n}',
    ji_at_hand: 'in hand', ji_at_meld: 'in melds', ji_at_river: 'in the river',
    ji_at_hand_theirs: 'in their hands', ji_at_meld_theirs: 'in their melds', ji_at_river_theirs: 'in their rivers',
    s_ready_value: 'ready value {n}',
    s_ready_type: 'ready for {type}: {n}',
    s_void_tiles: '{n} void tiles',
  },
};

/** Every error code the server sends (docs/protocol.md: REST ``detail.code`` and the
 *  WebSocket ``error`` message), as a player reads it. */
export const ERRORS = {
  zh: {
    room_full: '房间已满，没有空座位了',
    session_not_over: '本场还没结束',
    token_required: '请先入座再操作（需要座位凭证）',
    too_many_sockets: '连接太多，请关闭其他页面后重试',
    too_many_spectators: '观战人数已满',
    bad_cursor: '翻页参数无效，请从第一页重新查询',
    bad_correction: '这条更正无效（牌局未结算、座位不对、分数须大于0或已作废）',
    bad_range: '结束时间必须晚于开始时间',
    conflict: '与已有记录冲突，未做更改',
    not_found: '找不到该记录',
    hand_not_finished: '这一局还没有结束，结束后才能查看',
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
    hand_with_bots: '只有你和机器人时，本局打完才能解散',
    not_between_hands: '现在不能准备',
    no_vote: '没有进行中的解散投票',
    already_voted: '你已经投过票了',
    spectator: '观战中，不能操作',
    too_large: '消息太长',
    rate_limited: '操作太频繁，请稍后再试',
    replaced: '你的座位已在另一个页面打开',
    internal: '服务器出错了，本次操作没有生效',
    unknown_phrase: '没有这条快捷语',
    phrase_rate_limited: '快捷语发得太快了，请等几秒',
    seat_taken: '这个座位已经有人了',
    seat_held: '空座位为上一场的玩家保留中，请稍候',
    seat_empty: '这个座位是空的',
    not_a_bot: '这个座位是玩家，不是机器人',
    room_started: '已经开局，不能再移除机器人',
    window_open: '抢牌还没结束，请稍等',
    unavailable: '服务器暂时不可用，请稍后再试',
    bad_request: '请求无效',
    method_not_allowed: '不支持这种请求方式',
    forbidden: '没有权限',
    admin_off: '管理功能未开启：服务器没有设置 ADMIN_TOKEN',
    hand_over: '本局已经结束',
    network: '网络连接失败，请检查网络',
    unknown: '出错了 ({code})',
    option_invalid: '选项「{label}」无效',
    field_invalid: '「{label}」无效',
    options_exclusive: '选项「{labels}」不能同时选',
    options_invalid: '房间选项无效',
    v_too_small: '太小',
    v_too_large: '太大',
    v_min: '至少 {n}',
    v_max: '最多 {n}',
    v_more_than: '须大于 {n}',
    v_less_than: '须小于 {n}',
    v_choice: '不在可选范围内',
    v_integer: '应为整数',
    v_bool: '应为是或否',
    v_extra: '不认识这个选项',
    v_missing: '不能为空',
    v_too_short: '太短',
    v_too_long: '太长',
    v_bot_name: '这个名字留给机器人',
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
    hand_not_finished: 'This hand is not over yet: it can be seen once it ends',
    already_seated: 'You already hold a seat in this room (perhaps on another device)',
    bad_player_code: 'No player has this player code',
    player_code_required: 'A player code is needed',
    bad_player: 'Give a player name or a profile id',
    room_full: 'The room is full: every seat is taken',
    session_not_over: 'The session is not over yet',
    unknown_room: 'Room {code} does not exist: check the code',
    stale_prompt: 'Too late: the hand has moved on',
    illegal_action: 'The rules do not allow that move',
    not_your_turn: 'It is not your turn',
    bad_token: 'Your seat pass is not valid: join the room again',
    bad_message: 'Malformed message',
    bad_action: 'Invalid action',
    no_hand: 'No hand is being played',
    no_session: 'The session is not running: nothing to dissolve',
    hand_with_bots: 'Alone with bots, you can dissolve once this hand ends',
    not_between_hands: 'You cannot get ready now',
    no_vote: 'No dissolve vote is open',
    already_voted: 'You have already voted',
    spectator: 'Spectators cannot play',
    too_large: 'Message too long',
    rate_limited: 'Too many requests: try again shortly',
    replaced: 'Your seat was opened in another tab',
    internal: 'Server error: nothing was changed',
    unknown_phrase: 'No such quick phrase',
    phrase_rate_limited: 'Quick phrases too fast: wait a few seconds',
    seat_taken: 'That seat is taken',
    seat_held: 'The free seats are kept a while for the last session\'s players',
    seat_empty: 'That seat is empty',
    not_a_bot: 'A player sits there, not a bot',
    room_started: 'The game has started: bots can no longer be removed',
    window_open: 'The claim window is still open: wait a moment',
    unavailable: 'The server is unavailable: try again shortly',
    bad_request: 'Invalid request',
    method_not_allowed: 'This request method is not allowed',
    forbidden: 'Not allowed',
    admin_off: 'The admin API is off: the server has no ADMIN_TOKEN',
    hand_over: 'The hand is over',
    network: 'Network error: check your connection',
    unknown: 'Error ({code})',
    option_invalid: 'Option "{label}" is invalid',
    field_invalid: '"{label}" is invalid',
    options_exclusive: 'Options "{labels}" cannot be chosen together',
    options_invalid: 'Invalid room options',
    v_too_small: 'too small',
    v_too_large: 'too large',
    v_min: 'at least {n}',
    v_max: 'at most {n}',
    v_more_than: 'must be more than {n}',
    v_less_than: 'must be less than {n}',
    v_choice: 'not one of the choices',
    v_integer: 'must be a whole number',
    v_bool: 'must be yes or no',
    v_extra: 'unknown option',
    v_missing: 'required',
    v_too_short: 'too short',
    v_too_long: 'too long',
    v_bot_name: 'this name is kept for bots',
  },
};

/** The bound a number broke, from pydantic error ``e`` (its ``msg`` ends with it: "Input
 * should be greater than or equal to 1"): "at least 1"; '' for any other error. */
function boundText(e) {
  const key = BOUND_KINDS[e.type];
  const n = key && /(-?\d+(?:\.\d+)?)$/.exec(String(e.msg || ''));
  return n ? errT(key, { n: n[1] }) : '';
}
const BOUND_KINDS = {
  greater_than_equal: 'v_min', less_than_equal: 'v_max', greater_than: 'v_more_than', less_than: 'v_less_than',
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
  bot_name: 'v_bot_name', // server/api/messages.py BOT_NAME
};

/** An error's text for ``key`` (see `lookup`); '' when there is none. */
function errT(key, params) { return lookup(ERRORS, key, params, ''); }

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
    const why = boundText(e) || (VALIDATION_KINDS[e.type] ? errT(VALIDATION_KINDS[e.type]) : '');
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

/** ``key``'s text in ``table`` (``{zh: {...}, en: {...}}``) for the language in use (else
 *  its Chinese, else ``missing``: the key itself), with each ``{name}`` filled from ``params``. */
function lookup(table, key, params, missing = key) {
  let s = (table[lang] && table[lang][key]) || table.zh[key] || missing;
  if (params) {
    for (const [k, v] of Object.entries(params)) s = s.replace(`{${k}}`, String(v));
  }
  return s;
}

/** The shared strings' text for ``key`` (see `lookup`). */
export function t(key, params) { return lookup(STRINGS, key, params); }

/** A `t` over a page's own ``table`` of strings (回放, 战绩): ``{zh: {...}, en: {...}}``. */
export function translator(table) { return (key, params) => lookup(table, key, params); }

/** A name for a player who gave none: 玩家NNN / PlayerNNN (NNN random, 100..999). */
export function defaultName() {
  return `${lang === 'en' ? 'Player' : '玩家'}${Math.floor(Math.random() * 900 + 100)}`;
}

/** A bot's name on every screen (the table, 战绩, 回放): 机器人N / Bot N, numbered by its seat
 *  ``i`` (N = i + 1), never by a wind: the winds turn with the dealer, so "机器人·南" sat at 西
 *  whenever seat 1 was not 南 (the server's "Bot South" is by seat too). */
export function botName(i) {
  return lang === 'en' ? `Bot ${i + 1}` : `${t('bot')}${i + 1}`;
}

export const CHICKEN_KINDS = { yao_ji: '幺鸡', wu_gu_ji: '乌骨鸡', fan_pai_ji: '翻牌鸡', ben_ji: '本鸡', xing_qi_ji: '星期鸡' };

/** The chicken a `ji` / `chong_feng_ji` / `ze_ren_ji` payment is for, from its `detail` ``d``:
 * 幺鸡 (金鸡 when golden), 乌骨鸡 (金乌骨), a turned 翻牌鸡 (摇摆鸡 with the room's
 * ``options.yao_bai_ji``), 本鸡, 星期鸡; 包鸡 when a seat that is not ready pays for its open
 * chicken. Shared by the table's settlement and 回放. */
export function chickenKindText(d, reason, options) {
  const wuGu = d.kind === 'wu_gu_ji' || (d.kind === undefined && d.tile === '8p');
  if (reason !== 'ji') return wuGu ? chickenName('乌骨') : '';
  let text = d.jin ? (wuGu ? '金乌骨' : '金鸡') : (CHICKEN_KINDS[d.kind] || (d.tile === '1s' ? '幺鸡' : '翻牌鸡'));
  if (d.kind === 'fan_pai_ji' && options && options.yao_bai_ji) text = '摇摆鸡';
  return d.bao_ji ? `${chickenName('包鸡')} · ${chickenName(text)}` : chickenName(text);
}

/** A ledger row's reason in words, a chicken's with its kind and where it lies (鸡 · 幺鸡 ·
 *  河里, 冲锋鸡 · 乌骨), as the table says: for 回放's and the admin page's payment lists.
 *  ``p``: ``{"reason", "detail"}``; ``options``: the room's (摇摆鸡). */
export function paymentReasonText(p, options) {
  const d = p.detail && typeof p.detail === 'object' ? p.detail : {};
  const parts = [reasonText(p.reason), chickenKindText(d, p.reason, options), d.at ? t(`ji_at_${d.at}`) : '',
    d.ready_type ? handTypeText(d.ready_type) : '']; // 查叫: the hand the ready seat waits for
  return parts.filter(Boolean).join(' · ');
}

/** English names of the chickens (spec/guiyang.md §9). */
const CHICKENS_EN = {
  幺鸡: 'one-bamboo chicken', 金鸡: 'golden chicken', 乌骨鸡: 'black-bone chicken', 金乌骨: 'golden black-bone',
  乌骨: 'black-bone', 翻牌鸡: 'turned chicken', 摇摆鸡: 'swinging chicken', 本鸡: 'turned tile chicken',
  星期鸡: 'weekday chicken', 包鸡: 'paying for chickens',
};

/** A chicken's Chinese name ``zh`` as the page's language shows it: 金鸡, "golden chicken (金鸡)". */
export function chickenName(zh) {
  return lang === 'en' && CHICKENS_EN[zh] ? `${CHICKENS_EN[zh]} (${zh})` : zh;
}

export function reasonText(r) {
  return (REASONS[lang] && REASONS[lang][r]) || REASONS.zh[r] || r;
}

/** English names of both games' hand types (spec/guiyang.md §6), 番 (spec/jintan.md §J6),
 * ways to win and kongs (豆). */
const TERMS_EN = {
  ping_hu: 'plain win', da_dui_zi: 'all pongs', qi_dui: 'seven pairs', long_qi_dui: 'dragon seven pairs',
  dan_diao: 'single wait', qing_yi_se: 'full flush', qing_da_dui: 'full-flush all pongs',
  qing_qi_dui: 'full-flush seven pairs', qing_long_bei: 'full-flush dragon seven pairs',
  qing_dan_diao: 'full-flush single wait', standard: 'win', ba_hua: 'eight flowers',
  hun_yi_se: 'half flush', dui_dui_hu: 'all pongs', gang_kai: 'win on a kong', du_diao: 'single wait',
  zi_mo: 'self-draw', self_draw: 'self-draw', dian_pao: 'on a discard', jie_pao: 'on a discard', ji_hu: 'chicken hand', discard: 'on a discard',
  re_pao: 'hot discard', qiang_gang: 'robbing a kong', ruan_bao: 'soft ready', ying_bao: 'hard ready',
  sha_bao: 'kill-ready', men_dou: 'concealed kong', ming_dou: 'exposed kong', zhuan_wan_dou: 'added kong',
};

/** A hand type or 番 ``key`` whose Chinese name is ``zh``, as the page's language shows it:
 * 清一色, or "full flush (清一色)" in English (the key itself when it has no English name). */
export function termText(key, zh) {
  return lang === 'en' ? `${TERMS_EN[key] || key} (${zh})` : zh;
}

/** How a hand was won (`WIN_KINDS`) in the page's language; '' for an unknown kind.
 * ``winner``: said of the winner, for whom a win on a discard is 接炮 (点炮 is the payer's). */
export function winKindText(k, winner = false) {
  if (winner && (k === 'dian_pao' || k === 'discard')) return termText('jie_pao', '接炮');
  return WIN_KINDS[k] ? termText(k, WIN_KINDS[k]) : '';
}

export function handTypeText(h) {
  if (!h) return '';
  return termText(h, HAND_TYPES[h] || h);
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
