import { isDateline } from '../../src/features/reading/content.extract.ts'
for (const l of ['November 12, 2018 | BY: Beachbody','Posted on Oktober 27, 2015 by Admin','UPDATED: Tue., Nov. 19, 2019','Published November 20th, 2019 - 07:29 GMT','First Published on Nov 20, 2019 01:38 pm','Published on: June 25, 2024','Last Updated : Nov 20, 2019 01:41 PM IST | Source: Moneycontrol.com','On November 19, 2019 the man was arrested in his home by the police.','In May 2019 we moved.','20.11.2019','May 5, 2019: The company said it would close all stores.'])
  console.log(isDateline(l), l)
for (const l of ['November 19, 2019 the man was arrested in Ohio.', 'Mar 3, 2020 12:00 am EST', '12. März 2019, 10:15 Uhr', 'Sep 10, 2019 — By Jane Doe and John Roe'])
  console.log(isDateline(l), l)
