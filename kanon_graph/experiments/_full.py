"""The committed full runs' verdicts, written by docs/make_research.py: do not edit.

``FULL[paper]`` lists ``(claim, literal verdict, our verdict)`` per claim, so a
quick or capped run can say where its verdicts differ from the full run's.
"""

FULL: dict[str, list[tuple[str, str, str]]] = {'000': [("sd (paper): total NCP below Mondrian's, Incognito's and Datafly's at every k and "
          'table size (section 5, Fig. 4)',
          'holds',
          'holds'),
         ("sd: total NCP below Mondrian's, Incognito's and Datafly's at every k and table size "
          '(section 5, Fig. 4)',
          'holds',
          'holds'),
         ('The advantage of SD (paper) grows with the table size, most at large k (Fig. 4(d)): '
          'the gap to the best other algorithm at the largest k',
          'holds',
          'does not hold'),
         ("SD's utility falls as k grows: the privacy / utility trade-off (Fig. 5)",
          'holds',
          'holds')],
 '001': [("Table 1's six records: the proposed method forms four clusters, the systematic "
          'clustering two (5.3, Fig. 1-2)',
          'does not hold',
          'does not hold'),
         ('Table 1: the proposed method loses less than the systematic clustering, 17.28 '
          'against 17.70 (4.1)',
          'does not hold',
          'does not hold'),
         ('The proposed method takes less time at every k (Fig. 1)', 'holds', 'holds'),
         ("The proposed method loses less information at every k, by the paper's own IL (Fig. "
          '2, 5)',
          'holds',
          'holds'),
         ("... and by Byun et al.'s IL, the measure the paper builds on (4.1)",
          'does not hold',
          'does not hold'),
         ('Information loss grows with the cluster size k, for both methods (Fig. 3-4)',
          'does not hold',
          'holds'),
         ('The proposed clusters are of nearly equal size, the systematic ones of different '
          'sizes (Fig. 6)',
          'does not hold',
          'does not hold')],
 '002': [('Proposed model: Age keeps its mean, Welch t-test p > 0.05 (3.3.3: p = 0.7278)',
          'holds',
          'holds'),
         ('Proposed model: Age keeps its variance, F-test p > 0.05 (3.3.3: p = 0.9857)',
          'holds',
          'holds'),
         ('Proposed model: the KS test still tells the distributions apart, p < 0.05 (3.3.3: p '
          '= 0.0138)',
          'holds',
          'does not hold'),
         ("Old model: Age's mean changes, t-test p < 0.05, and the KS test rejects strongly, p "
          '< 2.2e-16 (3.3.4)',
          'holds',
          'holds'),
         ("The proposed model's Age ECDF is closer to the original's than the old model's "
          '(3.3.2, Fig. 14-16)',
          'holds',
          'holds'),
         ('The narrower the age interval, the less significant the tests (Table 7)',
          'holds',
          'holds')],
 '003': [('MST: less information loss (GCP) than Mondrian and k-member (Fig. 7)',
          'does not hold',
          'holds'),
         ('MST: better (lower) discernibility than both (Fig. 8)',
          'does not hold',
          'does not hold'),
         ('MST: better (lower) CAVG than both (Fig. 9)', 'does not hold', 'does not hold')],
 '004': [("The global RV search keeps the raw tree's main pattern at k = 3 and 5 (7.2, Fig. 7)",
          'does not hold',
          'does not hold'),
         ('Bottom-up loses that pattern at k = 3 and 5 (7.2, Fig. 8)',
          'holds',
          'does not hold'),
         ('Capital gain above a cut (>= $6,001 in Fig. 7) still predicts >50K after the global '
          'search at k = 3 and 5 (7.2)',
          'does not hold',
          'does not hold'),
         ("The global RV release preserves the raw data's patterns better than bottom-up "
          "(7.2): more of the raw tree's 5 largest rules kept",
          'does not hold',
          'does not hold')]}
