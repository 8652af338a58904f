/*
 * ForgeFlow's lease protocol (issue 37): claim, heartbeat, release, acknowledgement, lease recovery and cancel,
 * with two worker processes (one configured label or two), lost replies, an application lock on a run's row,
 * process death and freeze, lease expiry. What is modelled and how to check it: README.md beside this file.
 *
 * Time is a tick; every timer counts down (leases, local deadlines) or up to a cap (ages), so the state space
 * is finite. Every database statement is one atomic step. Mutants (-D): MUT_LABEL, MUT_NO_ATTEMPT,
 * MUT_HB_WAITS, MUT_NO_SETTLE, MUT_NO_RUN_LEASE, MUT_RUN_LEASE_UNCHECKED,
 * MUT_NO_RECHECK, MUT_START_LATE, MUT_DEADLINE_FROM_END.
 */

#ifndef NRUNS
#define NRUNS 1
#endif
#define NW 2
#ifndef L
#define L 3            /* lease, in ticks */
#endif
#define HB 1           /* heartbeat interval */
#ifndef MAXATT
#define MAXATT 2       /* attempts (fence tokens) per run */
#endif
#ifndef MAXINC
#define MAXINC 3       /* incarnations registered in all (process starts and re-registrations) */
#endif

#define PENDING   0
#define RUNNING   1
#define SUCCEEDED 2
#define DEAD      3
#define CANCELLED 4

#define R_SUCC 1
#define R_FAIL 2
#define R_CANC 3

#define IX(w,r) ((w)*NRUNS+(r))

/* ---- the database ---- */
byte st[NRUNS];            /* run status */
byte owner[NRUNS];         /* running: the owner's incarnation */
byte ownlabel[NRUNS];      /* running: the owner's configured label (FORGEFLOW_WORKER_ID) */
byte att[NRUNS];           /* attempt: the fence token, never reused */
byte rl[NRUNS];            /* per-run lease, ticks left */
bool cancelreq[NRUNS];
bool applock[NRUNS];       /* an application's or operator's transaction holds the run's row lock */
byte pl[MAXINC+1];         /* worker_leases: process lease of each incarnation, ticks left; 0 = expired or absent */
byte nextinc = 1;

/* ---- the worker processes ---- */
byte label[NW];
bool alive[NW];
bool frozen[NW];
bool faulty[NW];           /* ghost: this incarnation froze, or its database calls failed or were slow */
byte inc[NW];              /* current incarnation, 0 = none (must register before claiming) */
byte hbph[NW];             /* heartbeat: 0 idle, 1 process lease, 2 run leases, 3 read, 4 release */
byte hbage[NW];            /* ticks since the running heartbeat started (capped) */
byte hbwait[NW];           /* ticks since the last heartbeat started (capped) */
bool claiming[NW];         /* a claim committed, its reply not yet settled */
byte crun[NW]; byte catt[NW]; byte cinc[NW]; byte cage[NW];
byte eatt[NW*NRUNS];       /* attempt executing here (its process alive), 0 = none */
byte dl[NW*NRUNS];         /* local deadline of that execution, ticks left */
byte aatt[NW*NRUNS];       /* attempt whose result waits for its acknowledgement, 0 = none */
byte ares[NW*NRUNS];
byte rel[NW*NRUNS];        /* attempt the heartbeat saw running under this incarnation but not held: to release */

/* faults and outside actions so far (freeze, kill, failing calls, lost replies, application locks, cancels) */
byte faults;
#ifndef MAXFAULTS
#define MAXFAULTS 4
#endif
#define FAULT (faults < MAXFAULTS)

/* ghost: ticks a running run has been without a live owner (not counted while its row is locked) */
byte orphan[NRUNS];

/* ---- helpers over runs and workers ---- */
#if NRUNS == 1
#define ANYR(P)     (P(0))
#define ANYWR(P,w)  (P(w,0))
#else
#define ANYR(P)     (P(0) || P(1))
#define ANYWR(P,w)  (P(w,0) || P(w,1))
#endif

/* the fence of every later write, and the heartbeat's "runs running under me" */
#ifdef MUT_LABEL
#define OWNS(w,r) (ownlabel[r] == label[w])
#else
#define OWNS(w,r) (owner[r] == inc[w])
#endif
#ifdef MUT_NO_ATTEMPT
#define SAMEATT(a,r) ((a) != 0)
#define NOTHELD(w,r) (eatt[IX(w,r)] == 0 && aatt[IX(w,r)] == 0)
#else
#define SAMEATT(a,r) (att[r] == (a))
#define NOTHELD(w,r) (eatt[IX(w,r)] != att[r] && aatt[IX(w,r)] != att[r])
#endif
#define FENCE(w,r,a) (st[r] == RUNNING && OWNS(w,r) && SAMEATT(a,r))

#define CLAIMABLE(r)   (st[r] == PENDING && !applock[r] && att[r] < MAXATT)
#ifdef MUT_NO_RUN_LEASE
#define RECOV(r)       (st[r] == RUNNING && pl[owner[r]] == 0 && !applock[r])
#else
#define RECOV(r)       (st[r] == RUNNING && rl[r] == 0 && pl[owner[r]] == 0 && !applock[r])
#endif
#define CANCELABLE(r)  (!applock[r] && (st[r] == PENDING || (st[r] == RUNNING && !cancelreq[r])))
/* a job may end by itself also once its deadline passed, before the kill: its result is acknowledged, fenced */
#define FIN(w,r)       (eatt[IX(w,r)] != 0 && aatt[IX(w,r)] == 0)
#define ACKABLE(w,r)   (aatt[IX(w,r)] != 0 && !applock[r])
#define KILLDUE(w,r)   (eatt[IX(w,r)] != 0 && dl[IX(w,r)] == 0)
#define HELDLOCKED(w,r) (applock[r] && st[r] == RUNNING && OWNS(w,r))
#ifdef MUT_HB_WAITS
#define HB2OK(w)       (!ANYWR(HELDLOCKED,w))
#else
#define HB2OK(w)       true
#endif
/* at release time the run must still not be held here: a claim that settled meanwhile may have delivered it */
#ifdef MUT_NO_RECHECK
#define STILLUNHELD(w,r) true
#else
#define STILLUNHELD(w,r) (eatt[IX(w,r)] != rel[IX(w,r)] && aatt[IX(w,r)] != rel[IX(w,r)])
#endif
/* an attempt whose deadline passed before the claim's reply came is never started */
#ifdef MUT_START_LATE
#define STARTOK(w) true
#else
#define STARTOK(w) (cage[w] < L-HB)
#endif
#ifdef MUT_RUN_LEASE_UNCHECKED
#define PLOK(w)        true
#else
#define PLOK(w)        (pl[inc[w]] > 0)
#endif
#ifdef MUT_NO_SETTLE
#define SETTLED(w)     true
#else
#define SETTLED(w)     (!claiming[w])
#endif
#define LIVEW(w,r)     (inc[w] == owner[r] && alive[w] && !frozen[w])
#define LIVE(r)        (pl[owner[r]] > 0 && (LIVEW(0,r) || LIVEW(1,r)))

/* a healthy worker does what is due before time moves on; a faulty one may be late with anything */
#define URGENT(w) (alive[w] && !frozen[w] && !faulty[w] && \
    ((inc[w] == 0 && nextinc <= MAXINC) || claiming[w] || \
     (inc[w] != 0 && ((hbph[w] == 0 && hbwait[w] >= HB) || hbph[w] == 1 || (hbph[w] == 2 && HB2OK(w)) || \
                      hbph[w] == 3 || (hbph[w] == 4 && SETTLED(w))))))
#define TICK_OK (!ANYWR(KILLDUE,0) && !ANYWR(KILLDUE,1) && !ANYR(RECOV) && !URGENT(0) && !URGENT(1))

inline clearLocal(w) {
  for (k : 0 .. NRUNS-1) {
    eatt[IX(w,k)] = 0; dl[IX(w,k)] = 0; aatt[IX(w,k)] = 0; ares[IX(w,k)] = 0; rel[IX(w,k)] = 0
  }
  k = 0
}

/* the owner is live at this moment (alive, not frozen, its process lease unexpired): its runs are not orphans */
inline seenLive(w) {
  for (k : 0 .. NRUNS-1) {
    if :: st[k] == RUNNING && owner[k] == inc[w] && pl[inc[w]] > 0 -> orphan[k] = 0 :: else -> skip fi
  }
  k = 0
}

inline endRun(r) { owner[r] = 0; ownlabel[r] = 0; rl[r] = 0; orphan[r] = 0; cancelreq[r] = false }

proctype Worker(byte w) {
  byte r; byte k;
  do
  /* register a new incarnation: worker_leases(incarnation, now + L) */
  :: atomic { alive[w] && !frozen[w] && inc[w] == 0 && nextinc <= MAXINC ->
       inc[w] = nextinc; nextinc++; pl[inc[w]] = L; faulty[w] = false; hbph[w] = 0; hbwait[w] = 0; hbage[w] = 0;
       printf("W%d registers incarnation %d\n", w, inc[w]) }

  /* claim: pending -> running, attempt + 1, owner = incarnation (SKIP LOCKED) */
  :: atomic { alive[w] && !frozen[w] && inc[w] != 0 && !claiming[w] && ANYR(CLAIMABLE) ->
       if
       :: CLAIMABLE(0) -> r = 0
#if NRUNS > 1
       :: CLAIMABLE(1) -> r = 1
#endif
       fi;
       st[r] = RUNNING; att[r]++; owner[r] = inc[w];
#ifdef MUT_LABEL
       ownlabel[r] = label[w];   /* only the mutant reads it; the correct model keeps it out of the state */
#endif
        rl[r] = L; orphan[r] = 0;
       claiming[w] = true; crun[w] = r; catt[w] = att[r]; cinc[w] = inc[w]; cage[w] = 0;
       printf("W%d claims run %d: attempt %d under incarnation %d\n", w, r, att[r], inc[w]); r = 0 }

  /* the claim's reply: delivered (the attempt starts, trusted until ask time + L - HB) or lost */
  :: atomic { alive[w] && !frozen[w] && claiming[w] ->
       r = crun[w];
       if
       :: cinc[w] == inc[w] && STARTOK(w) ->
            eatt[IX(w,r)] = 0;   /* an older attempt of the run still here is stopped first */
            assert(eatt[IX(1-w,r)] == 0);   /* never two executions of one run at once */
            eatt[IX(w,r)] = catt[w];
            dl[IX(w,r)] = (cage[w] < L-HB -> L-HB-cage[w] : 0);   /* ask time + L - HB */
            printf("W%d gets the claim's reply: executes run %d attempt %d\n", w, r, catt[w])
       :: cinc[w] == inc[w] && !STARTOK(w) -> printf("W%d: the claim's reply came too late: not started\n", w)
       :: cinc[w] != inc[w] -> printf("W%d: the claim's reply is for an older incarnation: not started\n", w)
       :: FAULT -> faults++; printf("W%d: the claim's reply is lost\n", w)
       fi;
       claiming[w] = false; crun[w] = 0; catt[w] = 0; cinc[w] = 0; cage[w] = 0; r = 0 }

  /* the job ends by itself */
  :: atomic { alive[w] && !frozen[w] && ANYWR(FIN,w) ->
       if
       :: FIN(w,0) -> r = 0
#if NRUNS > 1
       :: FIN(w,1) -> r = 1
#endif
       fi;
       aatt[IX(w,r)] = eatt[IX(w,r)]; eatt[IX(w,r)] = 0; dl[IX(w,r)] = 0;
       if :: ares[IX(w,r)] = R_SUCC :: ares[IX(w,r)] = R_FAIL fi;
       printf("W%d: run %d attempt %d ends (result %d)\n", w, r, aatt[IX(w,r)], ares[IX(w,r)]);
       r = 0 }

  /* acknowledgement, fenced; takes the row lock (waits for an application's); reply may be lost: retried */
  :: atomic { alive[w] && !frozen[w] && inc[w] != 0 && ANYWR(ACKABLE,w) ->
       if
       :: ACKABLE(w,0) -> r = 0
#if NRUNS > 1
       :: ACKABLE(w,1) -> r = 1
#endif
       fi;
       if
       :: FENCE(w,r,aatt[IX(w,r)]) ->
            if
            :: ares[IX(w,r)] == R_SUCC -> st[r] = SUCCEEDED
            :: ares[IX(w,r)] == R_CANC -> st[r] = CANCELLED
            :: ares[IX(w,r)] == R_FAIL -> st[r] = (att[r] < MAXATT -> PENDING : DEAD)
            fi;
            endRun(r); printf("W%d acknowledges run %d attempt %d: status %d\n", w, r, aatt[IX(w,r)], st[r])
       :: else -> printf("W%d acknowledges run %d attempt %d: fenced out\n", w, r, aatt[IX(w,r)])
       fi;
       if
       :: aatt[IX(w,r)] = 0; ares[IX(w,r)] = 0
       :: FAULT -> faults++; printf("W%d: the acknowledgement's reply is lost\n", w)   /* after the commit: retried */
       fi;
       r = 0 }

  /* the local safety rule: an execution not confirmed for L - HB since the start of its last confirming
     heartbeat (or its claim) is killed; the job's supervisor does it even while the worker is frozen */
  :: atomic { ANYWR(KILLDUE,w) ->
       if
       :: KILLDUE(w,0) -> r = 0
#if NRUNS > 1
       :: KILLDUE(w,1) -> r = 1
#endif
       fi;
       printf("W%d kills run %d attempt %d: its lease is not confirmed\n", w, r, eatt[IX(w,r)]);
       assert(faulty[w]);   /* a healthy worker's run is never killed for want of a lease */
       eatt[IX(w,r)] = 0; dl[IX(w,r)] = 0; r = 0 }

  /* heartbeat, every HB */
  :: atomic { alive[w] && !frozen[w] && inc[w] != 0 && hbph[w] == 0 && hbwait[w] >= HB ->
       hbph[w] = 1; hbage[w] = 0; hbwait[w] = 0; printf("W%d heartbeat starts\n", w) }
  /* 1: UPDATE worker_leases SET expires_at = now + L WHERE incarnation = me AND expires_at >= now */
  :: atomic { alive[w] && !frozen[w] && hbph[w] == 1 ->
       if
       :: pl[inc[w]] > 0 -> pl[inc[w]] = L; hbph[w] = 2; seenLive(w); printf("W%d extends its process lease\n", w)
       :: else ->   /* 0 rows: dead to the cluster; stop everything, register again */
            printf("W%d: its process lease expired: stops everything\n", w);
            clearLocal(w); inc[w] = 0; hbph[w] = 0; hbage[w] = 0
       fi }
  /* 2: per-run leases of held attempts, SKIP LOCKED (best effort), only while the process lease still holds */
  :: atomic { alive[w] && !frozen[w] && hbph[w] == 2 && HB2OK(w) ->
       for (r : 0 .. NRUNS-1) {
         if
         :: !applock[r] && PLOK(w) && ((eatt[IX(w,r)] != 0 && FENCE(w,r,eatt[IX(w,r)])) ||
                            (aatt[IX(w,r)] != 0 && FENCE(w,r,aatt[IX(w,r)]))) -> rl[r] = L;
              printf("W%d extends the lease of run %d\n", w, r)
         :: else -> skip
         fi
       }
       hbph[w] = 3; seenLive(w); r = 0 }
  /* 3: read (no lock) the runs running under this incarnation */
  :: atomic { alive[w] && !frozen[w] && hbph[w] == 3 ->
       hbph[w] = 0; k = hbage[w]; hbage[w] = 0;
       for (r : 0 .. NRUNS-1) {
         if
         :: eatt[IX(w,r)] != 0 && FENCE(w,r,eatt[IX(w,r)]) ->   /* held and still ours: confirmed */
              printf("W%d confirms run %d attempt %d\n", w, r, eatt[IX(w,r)]);
#ifdef MUT_DEADLINE_FROM_END
              dl[IX(w,r)] = L-HB;
#else
              if
              :: k < L-HB && dl[IX(w,r)] < L-HB-k -> dl[IX(w,r)] = L-HB-k
              :: else -> skip
              fi;
#endif
              if
              :: cancelreq[r] && aatt[IX(w,r)] == 0 ->   /* cancelled: stop it, acknowledge cancelled */
                   aatt[IX(w,r)] = eatt[IX(w,r)]; ares[IX(w,r)] = R_CANC; eatt[IX(w,r)] = 0; dl[IX(w,r)] = 0;
                   printf("W%d stops run %d: cancel requested\n", w, r)
              :: else -> skip
              fi
         :: eatt[IX(w,r)] != 0 && !FENCE(w,r,eatt[IX(w,r)]) ->  /* no longer ours: stopped locally */
              printf("W%d stops run %d attempt %d: no longer its own\n", w, r, eatt[IX(w,r)]);
              eatt[IX(w,r)] = 0; dl[IX(w,r)] = 0
         :: else -> skip
         fi;
         if
         :: st[r] == RUNNING && OWNS(w,r) && NOTHELD(w,r) -> rel[IX(w,r)] = att[r]; hbph[w] = 4;
              printf("W%d sees run %d attempt %d under it, not held\n", w, r, att[r])
         :: else -> skip
         fi
       }
       r = 0; k = 0 }
  /* 4: release what it does not hold, once every claim begun before has settled; SKIP LOCKED; fenced */
  :: atomic { alive[w] && !frozen[w] && hbph[w] == 4 && SETTLED(w) ->
       hbph[w] = 0;
       for (r : 0 .. NRUNS-1) {
         if
         :: rel[IX(w,r)] != 0 && !applock[r] ->
              if
              :: FENCE(w,r,rel[IX(w,r)]) && STILLUNHELD(w,r) ->
                   st[r] = PENDING; endRun(r); printf("W%d releases run %d attempt %d\n", w, r, rel[IX(w,r)])
              :: else -> skip
              fi;
              if
              :: rel[IX(w,r)] = 0
              :: FAULT -> faults++; hbph[w] = 4; printf("W%d: the release's reply is lost\n", w)   /* retried */
              fi
         :: rel[IX(w,r)] != 0 && applock[r] -> rel[IX(w,r)] = 0   /* skipped; the next heartbeat sees it again */
         :: else -> skip
         fi
       }
       r = 0 }
  /* a heartbeat of a worker whose database calls fail ends without confirming anything */
  :: atomic { alive[w] && !frozen[w] && faulty[w] && hbph[w] != 0 ->
       hbph[w] = 0; hbage[w] = 0; printf("W%d heartbeat fails\n", w);
       for (r : 0 .. NRUNS-1) { rel[IX(w,r)] = 0 }
       r = 0 }
  od
}

/* the leader: a running run whose per-run lease expired and whose incarnation's process lease is expired or
   absent goes back to pending (attempt counted), dead at the last attempt, cancelled when asked; it scans at
   least once a tick and its UPDATE re-checks both expiries and takes the row lock */
proctype Leader() {
  byte r;
  do
  :: atomic { ANYR(RECOV) ->
       if
       :: RECOV(0) -> r = 0
#if NRUNS > 1
       :: RECOV(1) -> r = 1
#endif
       fi;
       st[r] = (cancelreq[r] -> CANCELLED : (att[r] < MAXATT -> PENDING : DEAD));
       printf("leader recovers run %d attempt %d of incarnation %d: status %d\n", r, att[r], owner[r], st[r]);
       endRun(r); r = 0 }
  od
}

/* applications, operators and faults */
proctype Env() {
  byte r; byte w; byte k;
  do
  :: atomic { (applock[0] || FAULT) -> r = 0; faults = (applock[0] -> faults : faults + 1); applock[r] = !applock[r]; printf("application lock on run 0: %d\n", applock[r]) }
#if NRUNS > 1
  :: atomic { (applock[1] || FAULT) -> r = 1; faults = (applock[1] -> faults : faults + 1); applock[r] = !applock[r]; printf("application lock on run 1: %d\n", applock[r]); r = 0 }
#endif
  /* cancel: a pending run is cancelled, a running one gets cancel_requested (the UPDATE waits for locks) */
  :: atomic { FAULT && ANYR(CANCELABLE) -> faults++;
       if
       :: st[0] == PENDING && !applock[0] -> st[0] = CANCELLED
       :: st[0] == RUNNING && !applock[0] && !cancelreq[0] -> cancelreq[0] = true
#if NRUNS > 1
       :: st[1] == PENDING && !applock[1] -> st[1] = CANCELLED
       :: st[1] == RUNNING && !applock[1] && !cancelreq[1] -> cancelreq[1] = true
#endif
       fi; printf("operator cancels\n") }
  /* a worker process freezes (SIGSTOP, a VM pause), wakes, is killed (its jobs die with it), restarts,
     or its database calls fail or stall */
  :: atomic { FAULT && ((alive[0] && !frozen[0]) || (alive[1] && !frozen[1])) -> faults++;
       if :: alive[0] && !frozen[0] -> w = 0 :: alive[1] && !frozen[1] -> w = 1 fi;
       frozen[w] = true; faulty[w] = true; printf("W%d freezes\n", w); w = 0 }
  :: atomic { frozen[0] || frozen[1] ->
       if :: frozen[0] -> w = 0 :: frozen[1] -> w = 1 fi;
       frozen[w] = false; seenLive(w); printf("W%d wakes\n", w); w = 0 }
  :: atomic { FAULT && (alive[0] || alive[1]) -> faults++;
       if :: alive[0] -> w = 0 :: alive[1] -> w = 1 fi;
       alive[w] = false; frozen[w] = false; faulty[w] = true; inc[w] = 0; hbph[w] = 0; hbage[w] = 0;
       hbwait[w] = 0; claiming[w] = false; crun[w] = 0; catt[w] = 0; cinc[w] = 0; cage[w] = 0;
       clearLocal(w); printf("W%d is killed\n", w); w = 0 }
  :: atomic { (!alive[0] || !alive[1]) && nextinc <= MAXINC ->
       if :: !alive[0] -> w = 0 :: !alive[1] -> w = 1 fi;
       alive[w] = true; faulty[w] = false; printf("W%d restarts\n", w); w = 0 }
  :: atomic { FAULT && ((alive[0] && !faulty[0]) || (alive[1] && !faulty[1])) -> faults++;
       if :: alive[0] && !faulty[0] -> w = 0 :: alive[1] && !faulty[1] -> w = 1 fi;
       faulty[w] = true; printf("W%d: its database calls fail or stall from now on\n", w); w = 0 }
  od
}

/* time: one tick for everyone (clocks do not drift in this model) */
proctype Clock() {
  byte i;
  do
  :: atomic { TICK_OK -> printf("tick\n");
       for (i : 0 .. NW-1) {
         if :: hbwait[i] < HB -> hbwait[i]++ :: else -> skip fi;
         if :: hbph[i] != 0 && hbph[i] != 4 && hbage[i] < L -> hbage[i]++ :: else -> skip fi;
         if :: claiming[i] && cage[i] < L -> cage[i]++ :: else -> skip fi
       }
       for (i : 0 .. NW*NRUNS-1) {
         if :: eatt[i] != 0 -> dl[i]-- :: else -> skip fi
       }
       for (i : 1 .. MAXINC) {
         if :: pl[i] > 0 -> pl[i]-- :: else -> skip fi
       }
       for (i : 0 .. NRUNS-1) {
         if :: rl[i] > 0 -> rl[i]-- :: else -> skip fi;
         if
         :: st[i] != RUNNING || LIVE(i) -> orphan[i] = 0
         :: else ->
              if
              :: !applock[i] -> orphan[i]++;
                   assert(orphan[i] <= L)   /* running without a live owner for at most one lease */
              :: else -> skip
              fi
         fi
       }
       i = 0 }
  od
}

init {
  atomic {
    label[0] = 1;
#ifdef TWO_LABELS
    label[1] = 2;
#else
    label[1] = 1;   /* two processes with one FORGEFLOW_WORKER_ID */
#endif
    alive[0] = true; alive[1] = true;
    run Worker(0); run Worker(1); run Leader(); run Env(); run Clock()
  }
}
